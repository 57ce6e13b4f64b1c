"""Conventions: every choice that changes a QRA number, named, in one frozen object.

The QRA papers and the organisers' QRA3 tool compute the same measures with a few
different choices.  Each choice is a field of :class:`Conventions`, and there are two
named presets:

``qrapp`` (the default)
    QRA 2022 (Belz, Popovic & Mille), Belz (2021) and QRA++ (Belz 2025) as published: the
    numbers that ``paper_examples/`` asserts to the printed digit.
``qra3``
    The organisers' QRA3 tool (Belz & Thomson 2026), as its published outputs show
    (``qra3/`` of the published field data, a ReproNLP 2026 team's run on Yao et al. 2022: every value in its
    ``data.json`` is recomputed in ``tests/test_qra3.py``).

=====================  ======================  ======================  ==============================
field                  ``qrapp``               ``qra3``                source
=====================  ======================  ======================  ==============================
small_sample_factor    True                    False                   QRA 2022 eq. 1, QRA++ eq. 3 vs
                                                                       QRA3 ``apply_over_correction``
scale_shift            True                    True                    QRA 2022 section 3.1; QRA3
                                                                       ``scale_starts_at``
w_tie_correction       True                    False                   Kendall & Babington Smith
                                                                       (1939) vs QRA3's W (0.750 where
                                                                       the corrected W is 0.818)
p_ties                 "sign"                  "sign"                  QRA++ Figure 1 taken literally;
                                                                       QRA3 counts a pair tied in one
                                                                       experiment only as different
kappa_two              "cohen"                 "cohen"                 QRA++ section 6.3; QRA3
                                                                       ``type_iii_agreement_method:
                                                                       auto`` (decided, see below)
agreement_many         ("fleiss_kappa",        ("alpha",)              QRA++ Table 2 caption / 6.3;
                       "alpha")                                        QRA3 ``type_iii_agreement_method:
                                                                       auto`` (decided, see below)
alpha_level            None (the criterion's)  None (the criterion's)  QRA3
                                                                       ``type_iii_krippendorff_alpha_mode``
                                                                       sets each criterion's level
sd_ci                  "t"                     "t"                     QRA 2022 section 3.1; QRA3
                                                                       ``confidence_interval``
=====================  ======================  ======================  ==============================

What was read off QRA3's outputs, and how it was checked:

* ``small_sample_factor=False`` and ``scale_shift``: ``data.json`` gives, per system, the
  ``measurements``, the ``adjusted_measurements`` (minus ``scale_starts_at``), s* = s/c4(n)
  and ``coefficient_of_variation`` = ``s*/|mean| x 100`` (GT: 12.014..., where the factor would
  give 12.77); ``unbiased_coefficient_of_variation`` is null because
  ``apply_over_correction`` is false.  All recomputed to 1e-13.
* ``sd_ci="t"``: ``est_SE_of_SD_based_on_SE_of_unbiassed_sample_variance`` equals
  s^2 sqrt(2/(n-1)) / (2 s*) and ``confidence_interval`` is s* -/+ t(0.975, n-1) SE, the
  QRA 2022 interval that :func:`~qra_widgets.measures.cv_star` computes (to 1e-13);
  ``count_within_1_sd`` / ``_2_sd`` count values *strictly* within 1 and 2 s* of the mean.
* Kendall's W comes with p = chi2.sf(m (n-1) W, n-1) (W = 1, m = 4, n = 3: p = e^-4,
  exactly QRA3's 0.0183156...).  The example has no ties, so ``w_tie_correction=False``
  and the ``p_ties`` rule come from another published QRA3 run (3 systems, 3 experiments,
  one tie: W = 0.750 uncorrected, 0.818 corrected; P counts the pair tied in one
  experiment only as ranked differently); ``tests/engine/test_conventions.py`` rebuilds that case.
* P: ``data.json`` reports ``n`` (pairs ranked the same way) and ``d`` (system pairs compared,
  18 = 6 experiment pairs x 3); P = n/d, pooled over criteria at study level.  The run with a
  tie (``output-3-studies``, Answer Relevancy: n = 6, d = 9, P = 0.667) settles which is which.

Decided (the outputs do not settle it; each is a field you can change):

* ``agreement_many=("alpha",)`` for ``qra3``: the Yao 2022 run has no Type III result, but
  its config has ``type_iii_agreement_method: auto`` next to
  ``type_iii_krippendorff_alpha_mode`` and ``type_iii_ordinal_labels``, and nothing that
  configures Fleiss' kappa; so "auto" is read as Cohen's kappa for two experiments
  (``kappa_two``) and Krippendorff's alpha, at the configured level, for more.  A config
  with ``type_iii_agreement_method: fleiss`` gives ``agreement_many=("fleiss_kappa",)``
  (:func:`qra_widgets.qra3.conventions_for`).
* ``alpha_level=None`` for ``qra3`` too: :func:`~qra_widgets.qra3.read_qra3` puts the
  config's alpha mode (or ``--krippendorff-alpha-mode``) on each criterion's
  ``label_level``, so a QRA3 study's level travels with its data, and the preset stays
  ``qra3`` rather than ``qra3, with alpha_level='ordinal'``.
* QRA3's per-criterion ``apply_over_correction`` becomes one study-wide
  ``small_sample_factor``; a config that mixes true and false is refused.
* QRA3's per-criterion ``normal_data: false`` only changes the SE of s* in ``data.json``
  (see :mod:`qra_widgets.qra3`); it is not a convention of the numbers ``assess()`` reports.

>>> QRAPP.small_sample_factor, QRA3.small_sample_factor
(True, False)
>>> resolve("qra3") is QRA3, resolve(None) is QRAPP
(True, True)
>>> resolve("qra3").to_kwargs("cv_star")
{'small_sample_factor': False}
>>> QRAPP.replace(w_tie_correction=False).describe()
'qrapp, with w_tie_correction=False'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from dataclasses import replace as _replace
from typing import Any

from .errors import QRAInputError

P_TIE_RULES = ("sign", "untied")
KAPPA_TWO = ("cohen",)
AGREEMENT_MANY = ("fleiss_kappa", "alpha")
ALPHA_LEVELS = (None, "nominal", "ordinal", "interval", "ratio")
SD_CI = ("t",)


@dataclass(frozen=True)
class Conventions:
    """The choices behind every QRA number (see the module docstring for sources).

    Parameters
    ----------
    name : str
        The preset these conventions are, or were derived from (``qrapp`` or ``qra3``).
    small_sample_factor : bool
        Multiply CV* by (1 + 1/(4n)) (QRA 2022 eq. 1; QRA++ eq. 3).  QRA3 does not
        (``apply_over_correction: false``).
    scale_shift : bool
        Subtract the criterion's ``scale_min`` before CV* (QRA 2022 section 3.1).
    w_tie_correction : bool
        Kendall's W with the tie correction in its denominator.  QRA3 reports W without it.
    p_ties : {"sign", "untied"}
        P's tie rule (:func:`~qra_widgets.measures.rank_agreement`): ``sign`` compares the
        signs of the two differences (a tie in both is the same, in one only is not);
        ``untied`` leaves out pairs tied in either experiment.
    kappa_two : {"cohen"}
        The chance-corrected agreement for two experiments' labels.
    agreement_many : tuple of {"fleiss_kappa", "alpha"}
        Which coefficients are reported for more than two experiments' labels.
    alpha_level : {None, "nominal", "ordinal", "interval", "ratio"}
        Krippendorff's alpha metric; ``None`` uses each criterion's ``label_level``.
    sd_ci : {"t"}
        The interval reported for s*: the t-based interval of QRA 2022 section 3.1.
    """

    name: str = "qrapp"
    small_sample_factor: bool = True
    scale_shift: bool = True
    w_tie_correction: bool = True
    p_ties: str = "sign"
    kappa_two: str = "cohen"
    agreement_many: tuple[str, ...] = ("fleiss_kappa", "alpha")
    alpha_level: str | None = None
    sd_ci: str = "t"

    def __post_init__(self) -> None:
        for name in ("small_sample_factor", "scale_shift", "w_tie_correction"):
            if not isinstance(getattr(self, name), bool):
                raise QRAInputError(f"conventions.{name}: must be true or false, got {getattr(self, name)!r}")
        _choice("p_ties", self.p_ties, P_TIE_RULES)
        _choice("kappa_two", self.kappa_two, KAPPA_TWO)
        _choice("alpha_level", self.alpha_level, ALPHA_LEVELS)
        _choice("sd_ci", self.sd_ci, SD_CI)
        many = tuple(self.agreement_many) if isinstance(self.agreement_many, (list, tuple)) else None
        if not many or any(item not in AGREEMENT_MANY for item in many) or len(set(many)) != len(many):
            raise QRAInputError(
                f"conventions.agreement_many: must be a non-empty selection of {', '.join(AGREEMENT_MANY)}, "
                f"got {self.agreement_many!r}"
            )
        object.__setattr__(self, "agreement_many", many)
        if not isinstance(self.name, str) or not self.name:
            raise QRAInputError(f"conventions.name: must be a non-empty text, got {self.name!r}")

    def replace(self, **changes: Any) -> Conventions:
        """A copy with some fields changed (the name stays the preset it came from)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise QRAInputError(f"conventions: unknown field(s) {', '.join(sorted(unknown))}")
        return _replace(self, **changes)

    def changed_fields(self) -> dict[str, Any]:
        """The fields that differ from the named preset."""
        base = PRESETS.get(self.name)
        if base is None:
            return {}
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "name" and getattr(self, f.name) != getattr(base, f.name)
        }

    def stamp(self) -> str:
        """The preset and the fields that override it, in one token: ``qrapp``,
        ``qrapp+scale_shift=false`` (JSON spellings of the values, in field order).

        >>> QRAPP.replace(scale_shift=False, p_ties="untied").stamp()
        'qrapp+scale_shift=false+p_ties=untied'
        """
        import json

        def spelled(value: Any) -> str:
            return value if isinstance(value, str) else json.dumps(list(value) if isinstance(value, tuple) else value)

        return "+".join([self.name] + [f"{k}={spelled(v)}" for k, v in self.changed_fields().items()])

    def describe(self) -> str:
        """``qra3``, or ``qrapp, with w_tie_correction=False`` for a changed preset."""
        changed = self.changed_fields()
        if not changed:
            return self.name
        return f"{self.name}, with " + ", ".join(f"{k}={v!r}" for k, v in changed.items())

    def signature(self) -> str:
        """The stamp every output carries, as SacreBLEU's signature: the preset, each changed
        field, and the package version, e.g. ``conventions:qrapp|w_tie_correction:False|version:0.1.0``.

        >>> QRA3.signature().startswith("conventions:qra3|version:")
        True
        """
        from .version import __version__

        text = lambda v: ",".join(map(str, v)) if isinstance(v, tuple) else str(v)
        parts = [f"conventions:{self.name}", *(f"{k}:{text(v)}" for k, v in self.changed_fields().items())]
        return "|".join([*parts, f"version:{__version__}"])

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["agreement_many"] = list(self.agreement_many)
        return data

    def to_stored(self) -> str | dict[str, Any]:
        """What a study file stores: the preset name, or the fields when some were changed."""
        return self.to_dict() if self.changed_fields() or self.name not in PRESETS else self.name

    @classmethod
    def from_dict(cls, data: Any, where: str = "conventions") -> Conventions:
        """Read conventions as a preset name or a dict of fields (starting from ``name``'s preset)."""
        if isinstance(data, str):
            return resolve(data)
        if not isinstance(data, dict):
            raise QRAInputError(f"{where}: must be a preset name or an object, got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                import difflib

                close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
                raise QRAInputError(f"{where}: unknown field {str(key)[:40]!r}; {hint}")
        base = resolve(data.get("name", "qrapp"))
        return base.replace(**{k: v for k, v in data.items() if k != "name"})

    def to_kwargs(self, measure: str) -> dict[str, Any]:
        """The keyword arguments of ``measure`` (a :mod:`qra_widgets.measures` name) that these set."""
        if measure == "cv_star":
            return {"small_sample_factor": self.small_sample_factor}
        if measure == "kendall_w":
            return {"tie_correction": self.w_tie_correction}
        if measure == "kendall_w_pvalue":  # QRA3 reports the chi-square p-value (e^-4 in its published run)
            return {"tie_correction": self.w_tie_correction, "method": "chi2" if self.name == "qra3" else "auto"}
        if measure in ("rank_agreement", "rank_counts", "sign_counts"):
            return {"ties": self.p_ties}
        return {}


def _choice(name: str, value: Any, allowed: tuple) -> None:
    if value not in allowed:
        raise QRAInputError(f"conventions.{name}: must be one of {', '.join(map(repr, allowed))}, got {value!r}")


QRAPP = Conventions()
QRA3 = Conventions(name="qra3", small_sample_factor=False, w_tie_correction=False, agreement_many=("alpha",))
PRESETS: dict[str, Conventions] = {"qrapp": QRAPP, "qra3": QRA3}


def stored_conventions(metadata: dict | None) -> Conventions | None:
    """The conventions a study carries (``study.metadata["conventions"]``, the study file's
    ``conventions`` key), or ``None`` when it carries none.

    >>> stored_conventions({"conventions": "qra3"}) is QRA3, stored_conventions({})
    (True, None)
    """
    stored = (metadata or {}).get("conventions")
    return None if stored is None else Conventions.from_dict(stored, "study conventions")


def conventions_for(study, conventions: str | Conventions | dict | None = None) -> Conventions:
    """The conventions a report of ``study`` uses: ``conventions`` when given, else the study's own
    (:func:`stored_conventions`), else ``qrapp`` -- the rule :func:`~qra_widgets.assess` follows."""
    return resolve(conventions if conventions is not None else stored_conventions(study.metadata))


def resolve(conventions: str | Conventions | dict | None) -> Conventions:
    """``None`` -> ``qrapp``; a preset name -> that preset; a :class:`Conventions` as is."""
    if conventions is None:
        return QRAPP
    if isinstance(conventions, Conventions):
        return conventions
    if isinstance(conventions, str):
        try:
            return PRESETS[conventions]
        except KeyError:
            raise QRAInputError(
                f"conventions: unknown preset {conventions!r}; use one of {', '.join(PRESETS)}"
            ) from None
    if isinstance(conventions, dict):
        return Conventions.from_dict(conventions)
    raise QRAInputError(f"conventions: expected a preset name or Conventions, got {type(conventions).__name__}")
