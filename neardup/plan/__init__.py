"""The report as one plan of table operations, run by an engine (issue #40).

:mod:`neardup.plan.steps` defines each step once (SQL, and functions over Arrow batches that
call the in-process steps); :mod:`neardup.plan.driver` runs them in order on an engine;
:mod:`neardup.plan.duck` is the DuckDB engine (in process, every core, spilling to disk under a
memory limit), :mod:`neardup.plan.spark` the Spark engine (the same steps on a cluster, or in
local mode). ``NearDupIndex.report(engine="duckdb")`` (``"spark"``) and ``neardup report
--engine duckdb`` (``spark``) use them; the default, ``auto``, runs the report in process while
its estimated peak fits the memory budget and on DuckDB past it (:mod:`neardup.plan.budget`).
"""

from ..constraints import ENGINES, IN_PROCESS
from .budget import Placement, budget_of, place
from .driver import Planned, decided, engine_named
from .duck import DuckDB, EngineFailed
from .spark import Spark

__all__ = ["ENGINES", "IN_PROCESS", "DuckDB", "EngineFailed", "Placement", "Planned", "Spark",
           "budget_of", "decided", "engine_named", "place"]
