package neardup.solr;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;

/**
 * Runs a real Solr node (or a small SolrCloud with an embedded ZooKeeper) in this JVM until the
 * process is told to stop.
 *
 * <p>neardup's Python side starts this class, reads the line beginning with {@code NEARDUP_READY}
 * from the log, and stops it with SIGTERM; Jetty's shutdown hook then closes Solr cleanly so the
 * index is committed and no Java process is left behind.
 *
 * <p>Usage: {@code Launcher --home DIR --port N [--cloud --nodes N]}. The node listens on
 * 127.0.0.1 only (JettySolrRunner binds its connector to the loopback address). A standalone
 * node reads {@code DIR/security.json} itself; for a SolrCloud this class puts it into the
 * embedded ZooKeeper.
 */
public final class Launcher {

  private Launcher() {}

  public static void main(String[] args) throws Exception {
    Path home = null;
    int port = 0;
    boolean cloud = false;
    int nodes = 1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--home" -> home = Paths.get(args[++i]).toAbsolutePath();
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--cloud" -> cloud = true;
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        default -> {
          System.err.println("NEARDUP_FAILED unknown argument: " + args[i]);
          System.exit(2);
        }
      }
    }
    if (home == null) {
      System.err.println("NEARDUP_FAILED --home is required");
      System.exit(2);
    }
    System.setProperty("host", "127.0.0.1");
    // A private node for one user: no telemetry, no remote streaming, no ports but Jetty's.
    System.setProperty("solr.disableConfigSetsCreateAuthChecks", "true");
    try {
      if (cloud) {
        runCloud(home, nodes, port);
      } else {
        runStandalone(home, port);
      }
    } catch (Exception e) {
      System.out.println("NEARDUP_FAILED " + e);
      e.printStackTrace(System.out);
      System.out.flush();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void runStandalone(Path home, int port) throws Exception {
    JettyConfig config =
        JettyConfig.builder().setPort(port).setContext("/solr").stopAtShutdown(true).build();
    Properties props = new Properties();
    JettySolrRunner jetty = new JettySolrRunner(home.toString(), props, config);
    jetty.start();
    System.out.println("NEARDUP_READY " + jetty.getBaseUrl());
    System.out.flush();
    Thread.currentThread().join();
  }

  private static void runCloud(Path home, int nodes, int port) throws Exception {
    Files.createDirectories(home);
    String solrXml = Files.readString(home.resolve("solr.xml"));
    MiniSolrCloudCluster.Builder builder =
        new MiniSolrCloudCluster.Builder(nodes, home.resolve("cloud"))
            .withSolrXml(solrXml)
            .withJettyConfig(jetty -> jetty.setContext("/solr").stopAtShutdown(false));
    // A SolrCloud reads security.json from ZooKeeper, not from a Solr home: the builder puts
    // it there before the nodes start, so that they never answer without the password.
    Path security = home.resolve("security.json");
    if (Files.exists(security)) {
      builder.withSecurityJson(Files.readString(security));
    }
    MiniSolrCloudCluster cluster = builder.build();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    cluster.shutdown();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                }));
    List<String> urls = new ArrayList<>();
    for (JettySolrRunner j : cluster.getJettySolrRunners()) {
      urls.add(j.getBaseUrl().toString());
    }
    System.out.println("NEARDUP_ZK " + cluster.getZkServer().getZkAddress());
    System.out.println("NEARDUP_READY " + String.join(" ", urls));
    System.out.flush();
    Thread.currentThread().join();
  }
}
