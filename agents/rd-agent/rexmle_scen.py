"""R&D-Agent scenario for rexmle: DS_SCEN=rexmle_scen.RexmleScen.

R&D-Agent v0.8.0's default scenario (DS_SCEN, rdagent/app/data_science/conf.py:15)
is KaggleScen, which
  - downloads the data with `kaggle competitions download` when
    DS_IF_USING_MLE_DATA is off (rdagent/scenarios/kaggle/kaggle_crawler.py:182, called
    from KaggleScen.__init__, rdagent/scenarios/data_science/scen/__init__.py:269), and
  - takes the metric direction from Kaggle's leaderboard API
    (KaggleScen._get_direction -> kaggle_crawler.get_metric_direction -> leaderboard_scores,
    kaggle_crawler.py:209-228; rdagent/core/utils.py:75 import_class).
Neither works offline for a rexmle challenge. RexmleScen is R&D-Agent's own
DataScienceScen (local description.md and data, no Kaggle), whose direction is
read from rexmle's task description: the statement about the metric the
scenario settled on ("`dice` (higher is better)"), else the one direction the
description states, else R&D-Agent's own reading of the description (the
"Metric Direction" of its competition analysis).

The direction rules are plain functions (testable without R&D-Agent); the
class is built on first use, since its base class needs R&D-Agent.
"""

import re

_PHRASE = re.compile(
    r"\b(?:(higher|larger|bigger|greater)|(lower|smaller))\s+(?:values?\s+)?(?:is|are)\s+better\b"
    r"|\bbetter\s+when\s+(?:(higher|larger|bigger|greater)|(lower|smaller))\b",
    re.IGNORECASE,
)


def stated_directions(line):
    """The directions a line of text states: True for higher is better."""
    out = []
    for m in _PHRASE.finditer(line):
        out.append(bool(m.group(1) or m.group(3)))
    return out


def _name_pattern(metric_name):
    words = [w for w in re.split(r"[^0-9a-z]+", (metric_name or "").lower()) if w]
    if not words:
        return None
    return re.compile(r"(?<![0-9a-z])" + r"[\s_\-`]*".join(map(re.escape, words)) + r"(?![0-9a-z])", re.IGNORECASE)


def statements(text):
    """The description's paragraphs and list items, each on one line (a
    sentence wrapped over lines is read whole)."""
    out, cur = [], []
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s.startswith(("- ", "* ", "#")) or re.match(r"\d+[.)] ", s):
            if cur:
                out.append(" ".join(cur))
            cur = [s] if s else []
        else:
            cur.append(s)
    if cur:
        out.append(" ".join(cur))
    return out


def direction_from_description(text, metric_name=None):
    """True (higher is better), False (lower is better) or None (the
    description does not say, or says both without naming the metric)."""
    lines = statements(text)
    pat = _name_pattern(metric_name)
    if pat is not None:
        named = set()
        for line in lines:
            if pat.search(line):
                named.update(stated_directions(line))
        if len(named) == 1:
            return named.pop()
    every = set()
    for line in lines:
        every.update(stated_directions(line))
    if len(every) == 1:
        return every.pop()
    return None


def _build():
    from rdagent.log import rdagent_logger as logger
    from rdagent.scenarios.data_science.scen import DataScienceScen

    class RexmleScen(DataScienceScen):
        """DataScienceScen with the metric direction from rexmle's description."""

        def _get_direction(self):
            d = direction_from_description(self.raw_description, self.metric_name)
            if d is None:
                d = super()._get_direction()
                logger.info("rexmle: the description states no direction for %r; R&D-Agent's reading: %s"
                            % (self.metric_name, "higher is better" if d else "lower is better"))
            else:
                logger.info("rexmle: metric %r, direction from the description: %s"
                            % (self.metric_name, "higher is better" if d else "lower is better"))
            return d

    # R&D-Agent pickles its session (the scenario included): the class must be
    # found again by name, as rexmle_scen.RexmleScen.
    RexmleScen.__qualname__ = "RexmleScen"
    RexmleScen.__module__ = __name__
    return RexmleScen


def __getattr__(name):
    # R&D-Agent imports the class by name (rdagent.core.utils.import_class).
    if name == "RexmleScen":
        cls = _build()
        globals()[name] = cls
        return cls
    raise AttributeError(name)
