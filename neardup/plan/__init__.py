"""The report as one plan of table operations, run by an engine (issue #40).

:mod:`neardup.plan.steps` defines each step once (SQL, and functions over Arrow batches that
call the in-process steps); :mod:`neardup.plan.driver` runs them in order on an engine;
:mod:`neardup.plan.duck` is the DuckDB engine (in process, every core, spilling to disk under a
memory limit), :mod:`neardup.plan.spark` the Spark engine (the same steps on a cluster, or in
local mode). ``NearDupIndex.report(engine="duckdb")`` (``"spark"``) and ``neardup report
--engine duckdb`` (``spark``) use them; the default stays the in-process report.
"""

from .driver import Planned, decided, engine_named
from .duck import DuckDB, EngineFailed
from .spark import Spark

#: The engines a report runs on: ``memory`` (the in-process report) or a plan engine.
ENGINES = ("memory", "duckdb", "spark")

__all__ = ["ENGINES", "DuckDB", "EngineFailed", "Planned", "Spark", "decided", "engine_named"]
