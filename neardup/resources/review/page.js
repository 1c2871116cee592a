// The review page's script (neardup/out/review.py inlines it): renders one page of pairs or
// clusters at a time from the JSON in #nd-data, with word differences computed here.
// A record is its source and its id: record i is (sources[source[i]], ids[i]), and every pair,
// cluster, mark and download refers to records by their index, never by a bare id.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("nd-data").textContent);
  var ids = D.ids, texts = D.texts, P = D.pairs, C = D.clusters;
  var SRC = D.sources || [], srcOf = D.source || [];
  // Sources are shown beside every id once the page holds records of two or more of them.
  var MANY = SRC.length > 1;
  function source(i) { var s = srcOf[i]; return s === undefined || s < 0 ? "" : SRC[s]; }
  var PAGE = 50, CPAGE = 20, CPAIRS = 10;
  var lower = [], cut = {}, kept = {}, E = D.evidence || null;
  (D.cut || []).forEach(function (i) { cut[i] = true; });
  (D.kept || []).forEach(function (i) { kept[i] = true; });
  // A reviewer's marks: pair index -> "match" | "non-match", kept in the browser's storage
  // under the page's identity (a hash of its data, so another page never shows them) and
  // downloaded as a labels file (both kinds, with sources) or a gold file (the matches).
  var LF = D.label_file || {header: [], match: "match", non_match: "non-match"};
  var MATCH = LF.match, NON = LF.non_match, marks = {};
  var STORE = "neardup-review-marks:" + (D.identity || "");
  function load() {
    try {
      var got = JSON.parse(window.localStorage.getItem(STORE) || "{}");
      for (var k in got) {
        var n = +k;
        if (n >= 0 && n < P.length && n === Math.floor(n) && (got[k] === MATCH || got[k] === NON))
          marks[n] = got[k];
      }
      return true;
    } catch (e) { return false; }
  }
  function save() {
    try { window.localStorage.setItem(STORE, JSON.stringify(marks)); return true; }
    catch (e) { return false; }
  }
  var byCluster = C.map(function () { return []; });
  P.forEach(function (p, i) { if (p[5] >= 0) byCluster[p[5]].push(i); });
  var BINS = D.bins;
  var state = {view: "pairs", filter: 0, min: null, max: null, bin: null, q: "", sort: D.sort,
    page: 0};
  var ok = new Uint8Array(P.length), shown = [], open = {};
  function $(id) { return document.getElementById(id); }
  function sim(i) { return P[i][2] === null ? -1 : P[i][2]; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // -- filtering ------------------------------------------------------------------------------
  function hit(i, q) {
    if (ids[i].toLowerCase() === q) return true;
    if (MANY && (source(i) + ":" + ids[i]).toLowerCase() === q) return true;
    if (texts[i] == null) return false;
    if (lower[i] === undefined) lower[i] = texts[i].toLowerCase();
    return lower[i].indexOf(q) >= 0;
  }
  function compute() {
    var allowed = {}, f = D.filters[state.filter][1];
    for (var k = 0; k < f.length; k++) allowed[f[k]] = true;
    var lo = state.min, hi = state.max, q = state.q, n = 0;
    for (var i = 0; i < P.length; i++) {
      var p = P[i], s = p[2], good = allowed[p[4]] === true;
      if (good && state.bin !== null)
        good = s !== null && Math.min(Math.floor(s * BINS + 1e-9), BINS - 1) === state.bin;
      if (good && lo !== null) good = s !== null && s >= lo - 1e-9;
      if (good && hi !== null) good = s !== null && s <= hi + 1e-9;
      if (good && q) good = hit(p[0], q) || hit(p[1], q);
      ok[i] = good ? 1 : 0;
      n += ok[i];
    }
    if (state.view === "pairs") {
      shown = [];
      for (i = 0; i < P.length; i++) if (ok[i]) shown.push(i);
      var size = function (i) { return P[i][5] >= 0 ? C[P[i][5]].length : 0; };
      if (state.sort === "asc") shown.sort(function (a, b) { return sim(a) - sim(b) || a - b; });
      else if (state.sort === "desc") shown.sort(function (a, b) { return sim(b) - sim(a) || a - b; });
      else if (state.sort === "cluster") shown.sort(function (a, b) {
        return size(b) - size(a) || P[a][5] - P[b][5] || a - b; });
    } else {
      shown = [];
      for (var c = 0; c < C.length; c++) {
        var m = byCluster[c];
        for (var j = 0; j < m.length; j++) if (ok[m[j]]) { shown.push(c); break; }
      }
    }
    state.matching = n;
  }

  // -- word differences -------------------------------------------------------------------------
  var PUNCT = /[!"#$%&'()*+,.\/:;<=>?@\[\\\]^_`{|}~]/g;
  function tokens(text) { return text ? text.split(/(\s+)/) : []; }
  function key(tok) { return tok.toLowerCase().replace(PUNCT, ""); }
  function words(toks) {
    var out = [];
    for (var i = 0; i < toks.length; i++) if (i % 2 === 0 && key(toks[i])) out.push(i);
    return out;
  }
  // Which words of a and b are not in their longest common subsequence (by normalized word).
  function diff(ka, kb) {
    var n = ka.length, m = kb.length, da = new Uint8Array(n), db = new Uint8Array(m), i, j;
    if (n * m > 4000000) {  // too long to align: a word is new if the other text lacks it
      var sa = new Set(ka), sb = new Set(kb);
      for (i = 0; i < n; i++) da[i] = sb.has(ka[i]) ? 0 : 1;
      for (j = 0; j < m; j++) db[j] = sa.has(kb[j]) ? 0 : 1;
      return [da, db];
    }
    var w = m + 1, L = new Uint32Array((n + 1) * w);
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--)
      L[i * w + j] = ka[i] === kb[j] ? L[(i + 1) * w + j + 1] + 1
        : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    i = 0; j = 0;
    while (i < n && j < m) {
      if (ka[i] === kb[j]) { i++; j++; }
      else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) da[i++] = 1;
      else db[j++] = 1;
    }
    while (i < n) da[i++] = 1;
    while (j < m) db[j++] = 1;
    return [da, db];
  }
  function marked(toks, ws, flags, cls) {
    var box = el("div", "txt"), buf = "", changed = {};
    for (var k = 0; k < ws.length; k++) if (flags[k]) changed[ws[k]] = true;
    for (var i = 0; i < toks.length; i++) {
      if (changed[i]) {
        if (buf) { box.appendChild(document.createTextNode(buf)); buf = ""; }
        box.appendChild(el("mark", cls, toks[i]));
      } else buf += toks[i];
    }
    if (buf) box.appendChild(document.createTextNode(buf));
    return box;
  }

  // -- rendering ----------------------------------------------------------------------------------
  function side(i, toks, ws, flags, cls) {
    var s = el("div", "side"), head = el("div", "rid");
    head.appendChild(document.createTextNode("id "));
    head.appendChild(el("b", null, ids[i]));
    if (MANY) head.appendChild(el("span", "src", source(i)));
    if (kept[i]) head.appendChild(el("span", "kept", "kept"));
    s.appendChild(head);
    if (texts[i] == null) s.appendChild(el("div", "txt none", "(no text)"));
    else s.appendChild(marked(toks, ws, flags, cls));
    if (cut[i]) s.appendChild(el("div", "rid", "(cut here: the page holds the first " +
      texts[i].length + " characters; the similarity is of the whole text)"));
    return s;
  }
  function pairView(pi, inCluster) {
    var p = P[pi], box = el("div", "pair"), meta = el("div", "meta");
    box.setAttribute("data-pair", pi);
    meta.appendChild(el("span", "sim", p[2] === null ? "n/a" : p[2].toFixed(3)));
    meta.appendChild(el("span", null, D.measure || "Jaccard"));
    meta.appendChild(el("span", null, p[3] === null ? "" : "word edit distance " + p[3]));
    if (p[6] !== null) meta.appendChild(el("span", null, "match probability " + p[6].toFixed(3)));
    if (p[7]) meta.appendChild(el("span", "asked", "asked " + p[7]));
    if (D.labels.length > 1) {
      var b = el("span", "badge", D.labels[p[4]]);
      b.style.background = D.colors[p[4]];
      meta.appendChild(b);
    }
    if (!inCluster && p[5] >= 0) {
      var a = el("a", "link", "cluster " + (p[5] + 1) + " (" + C[p[5]].length + " records)");
      a.onclick = function () { showCluster(p[5]); };
      meta.appendChild(a);
    }
    box.appendChild(meta);
    var ta = tokens(texts[p[0]]), tb = tokens(texts[p[1]]);
    var wa = words(ta), wb = words(tb);
    var d = diff(wa.map(function (k) { return key(ta[k]); }), wb.map(function (k) { return key(tb[k]); }));
    var sides = el("div", "sides");
    sides.appendChild(side(p[0], ta, wa, d[0], "del"));
    sides.appendChild(side(p[1], tb, wb, d[1], "ins"));
    box.appendChild(sides);
    if (E) box.appendChild(evidenceView(pi));
    if (D.marks) box.appendChild(markView(pi));
    return box;
  }
  // Why the pair is one: shared identifiers and rare words, the fields, the rule's reason.
  function evidenceView(pi) {
    var e = E[pi], box = el("div", "evidence");
    function line(cls, label, items, none) {
      var row = el("div", cls);
      row.appendChild(el("span", "elabel", label + ": "));
      if (!items.length) row.appendChild(el("span", "enone", none));
      items.forEach(function (w) {
        row.appendChild(el("code", null, w)); row.appendChild(document.createTextNode(" "));
      });
      box.appendChild(row);
    }
    line("ev-ids", "shared identifiers and numbers", e[1], "none");
    line("ev-rare", "shared rare words", e[2], "none");
    if (e[3].length || e[4].length || e[5].length) {
      line("ev-agree", "fields that agree", e[3], "none");
      line("ev-differ", "fields that differ", e[4], "none");
      if (e[5].length) line("ev-lacks", "fields only one record has", e[5], "none");
    }
    var why = el("div", "ev-reason");
    why.appendChild(el("span", "elabel", "why: "));
    why.appendChild(document.createTextNode(D.reasons[e[0]]));
    box.appendChild(why);
    return box;
  }
  function markView(pi) {
    var box = el("div", "marking");
    [[MATCH, "right", "\u2713 match"], [NON, "wrong", "\u2717 not a match"]].forEach(function (m) {
      var b = el("button", "mark-" + m[1] + (marks[pi] === m[0] ? " on" : ""), m[2]);
      b.type = "button";
      b.setAttribute("data-mark", m[0]);
      b.setAttribute("aria-pressed", marks[pi] === m[0] ? "true" : "false");
      b.onclick = function () {
        if (marks[pi] === m[0]) delete marks[pi]; else marks[pi] = m[0];
        var all = box.querySelectorAll("button");
        for (var k = 0; k < all.length; k++) {
          var on = marks[pi] === all[k].getAttribute("data-mark");
          all[k].className = all[k].className.replace(/ on$/, "") + (on ? " on" : "");
          all[k].setAttribute("aria-pressed", on ? "true" : "false");
        }
        stored = save();
        tally();
      };
      box.appendChild(b);
    });
    return box;
  }
  var stored = true;
  function tally() {
    var right = 0, wrong = 0;
    for (var k in marks) if (marks[k] === MATCH) right++; else wrong++;
    $("nd-marks").textContent = right + " match, " + wrong + " not a match" +
      (stored ? "" : " (this browser does not keep them: download them before closing)");
    $("nd-marks").setAttribute("data-right", right);
    $("nd-marks").setAttribute("data-wrong", wrong);
  }
  // A TSV field: as it is, or quoted as in CSV where it holds a tab, a line break or a quote
  // (Python's csv module with delimiter="\t" reads both).
  function field(v) {
    return /[\t\r\n"]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
  }
  function line(cells) { return cells.map(field).join("\t") + "\n"; }
  function markedPairs(which) {
    var chosen = [];
    for (var k in marks) if (which === null || marks[k] === which) chosen.push(+k);
    return chosen.sort(function (a, b) { return a - b; });
  }
  // The reviewer's labels: every marked pair, a match or not, with its records' sources.
  function labels() {
    var out = line(LF.header);
    markedPairs(null).forEach(function (k) {
      var a = P[k][0], b = P[k][1];
      out += line([source(a), ids[a], source(b), ids[b], marks[k], P[k][7] || ""]);
    });
    return out;
  }
  // The gold file neardup evaluate --gold reads: the pairs marked a match, ids as in the pairs
  // file (id1 id2), then their sources where the page knows them (as a link report's columns).
  function gold() {
    var sourced = SRC.length > 0;
    var out = line(sourced ? ["id1", "id2", "source1", "source2"] : ["id1", "id2"]);
    markedPairs(MATCH).forEach(function (k) {
      var a = P[k][0], b = P[k][1];
      out += line(sourced ? [ids[a], ids[b], source(a), source(b)] : [ids[a], ids[b]]);
    });
    return out;
  }
  function download(name, text) {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], {type: "text/tab-separated-values"}));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  function clusterView(c) {
    var box = el("section", "cluster"), m = byCluster[c], mine = [];
    box.setAttribute("data-cluster", c);
    for (var j = 0; j < m.length; j++) if (ok[m[j]]) mine.push(m[j]);
    if (state.sort === "asc") mine.sort(function (a, b) { return sim(a) - sim(b) || a - b; });
    if (state.sort === "desc") mine.sort(function (a, b) { return sim(b) - sim(a) || a - b; });
    box.appendChild(el("h3", null, "Cluster " + (c + 1) + ": " + C[c].length + " records, " +
      m.length + " pairs" + (mine.length < m.length ? " (" + mine.length + " match)" : "")));
    var ol = el("ol");
    C[c].slice(0, 100).forEach(function (i) {
      var li = el("li");
      li.appendChild(el("b", null, ids[i]));
      if (MANY) li.appendChild(el("span", "src", source(i)));
      if (kept[i]) { li.className = "kept"; li.appendChild(el("span", "kept", "kept")); }
      li.appendChild(document.createTextNode(" " + (texts[i] == null ? "" : texts[i])));
      ol.appendChild(li);
    });
    box.appendChild(ol);
    if (C[c].length > 100) box.appendChild(el("div", "rid", "... and " + (C[c].length - 100) + " more records"));
    var limit = open[c] ? mine.length : Math.min(mine.length, CPAIRS);
    for (j = 0; j < limit; j++) box.appendChild(pairView(mine[j], true));
    if (limit < mine.length) {
      var more = el("button", null, "show all " + mine.length + " pairs");
      more.onclick = function () { open[c] = true; draw(); };
      box.appendChild(more);
    }
    return box;
  }
  function draw() {
    var list = $("nd-list"), per = state.view === "pairs" ? PAGE : CPAGE;
    var pages = Math.max(1, Math.ceil(shown.length / per));
    if (state.page >= pages) state.page = pages - 1;
    var from = state.page * per, to = Math.min(shown.length, from + per);
    list.textContent = "";
    var frag = document.createDocumentFragment();
    for (var k = from; k < to; k++)
      frag.appendChild(state.view === "pairs" ? pairView(shown[k], false) : clusterView(shown[k]));
    if (!shown.length) frag.appendChild(el("div", "none", "Nothing matches."));
    list.appendChild(frag);
    var what = state.view === "pairs" ? " pairs" : " clusters";
    $("nd-status").textContent = shown.length ? (from + 1) + "-" + to + " of " + shown.length + what
      : "0" + what;
    $("nd-status").setAttribute("data-total", shown.length);
    $("nd-page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("nd-prev").disabled = state.page === 0;
    $("nd-next").disabled = state.page >= pages - 1;
    var buttons = document.querySelectorAll("#nd-view button");
    for (k = 0; k < buttons.length; k++)
      buttons[k].className = buttons[k].getAttribute("data-view") === state.view ? "on" : "";
  }
  function update() { state.page = 0; compute(); draw(); }
  function showCluster(c) {
    state.view = "clusters"; state.q = ""; $("nd-search").value = "";
    compute();
    var at = shown.indexOf(c);
    state.page = at < 0 ? 0 : Math.floor(at / CPAGE);
    draw();
    var node = document.querySelector('[data-cluster="' + c + '"]');
    if (node && node.scrollIntoView) node.scrollIntoView();
  }
  function number(v) { var x = parseFloat(v); return isNaN(x) ? null : x; }

  // -- controls -----------------------------------------------------------------------------------
  D.filters.forEach(function (f, k) {
    var o = el("option", null, f[0]); o.value = k; $("nd-filter").appendChild(o);
  });
  if (D.filters.length < 2) $("nd-filter").style.display = "none";
  if (!C.length) $("nd-view").style.display = "none";
  if (D.marks) {
    stored = load();
    $("nd-download").onclick = function () { download("gold.tsv", gold()); };
    $("nd-labels").onclick = function () { download("labels.tsv", labels()); };
    tally();
  } else $("nd-marking").style.display = "none";
  $("nd-sort").value = state.sort;
  $("nd-filter").onchange = function () { state.filter = +this.value; update(); };
  $("nd-sort").onchange = function () { state.sort = this.value; update(); };
  $("nd-min").oninput = function () { state.min = number(this.value); state.bin = null; update(); };
  $("nd-max").oninput = function () { state.max = number(this.value); state.bin = null; update(); };
  var timer = null;
  $("nd-search").oninput = function () {
    var v = this.value;
    clearTimeout(timer);
    timer = setTimeout(function () { state.q = v.trim().toLowerCase(); update(); }, 150);
  };
  $("nd-prev").onclick = function () { state.page--; draw(); window.scrollTo(0, 0); };
  $("nd-next").onclick = function () { state.page++; draw(); window.scrollTo(0, 0); };
  $("nd-reset").onclick = function () {
    state.min = state.max = state.bin = null; state.q = ""; state.filter = 0; state.page = 0;
    $("nd-min").value = $("nd-max").value = $("nd-search").value = ""; $("nd-filter").value = 0;
    update();
  };
  var views = document.querySelectorAll("#nd-view button");
  for (var v = 0; v < views.length; v++) views[v].onclick = function () {
    state.view = this.getAttribute("data-view"); update();
  };
  var bars = document.querySelectorAll("#nd-hist rect[data-lo]");
  for (var r = 0; r < bars.length; r++) bars[r].onclick = function () {
    state.min = state.max = null;  // the bar's own bin: its upper end excluded, as it counted
    state.bin = +this.getAttribute("data-bin");
    $("nd-min").value = this.getAttribute("data-lo"); $("nd-max").value = this.getAttribute("data-hi");
    update();
  };
  update();
  window.ndReady = performance.now();
  document.body.setAttribute("data-ready", "1");
})();
