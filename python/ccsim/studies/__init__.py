"""Study reproductions: each published study a module or package here
(set-up, experiments, claims and figures on :mod:`ccsim.studies.base` and
:mod:`ccsim.studies.kit`), run by :mod:`ccsim.studies.runner`
(``ccsim study list | NAME | all``)."""

from .runner import REGISTRY, StudyError, StudyOutcome, get, names, run_all, run_study

__all__ = ["REGISTRY", "StudyError", "StudyOutcome", "get", "names", "run_all", "run_study"]
