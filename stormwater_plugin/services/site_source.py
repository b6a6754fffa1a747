"""Where a site comes from: one protocol for the file reader and the QGIS snapshot, one use case over both.

A :class:`SiteSource` reads a site into plain inputs (:class:`SiteRead`: the
engine's :class:`~stormwater_plugin.core.model.SiteInputs` in the working
CRS, that CRS as WKT, and the document's ``inputs`` description). The
command line's adapter is ``headless.site_source.FileSiteSource`` (files,
through the headless reader); the plugin's is
``qgis_bridge.snapshot.QgisSiteSource`` (QGIS layers, through the snapshot).
Both hand what they read to :func:`check_site` (or :func:`review_site`, its
pair of what was read and the review), the one review use case: the stated
accuracy, the check (:func:`~stormwater_plugin.services.review.check`), the
front end's annotation of its sources and the submission's completeness, so
the same layers give the same findings.json whichever front end read them.

QGIS-free and file-free: the adapters do the reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

from ..core.derived import using
from ..core.errors import StormwaterError
from ..core.model import PROJECT_CLASSES, CheckResult, SiteInputs
from ..core.overrides import Override
from ..core.rulepack import RulePack
from ..core.siting import SitingEnvelope
from ..core.siting.envelope import DEFAULT_CELL_FT
from .accuracy import apply_accuracy
from .completeness import Completeness, check_completeness
from .incremental import CheckBasis, Recorder
from .review import Review, check
from .site_crs import working_crs_text
from .siting import find_envelope


@dataclass
class SiteRead:
    """A site as a :class:`SiteSource` read it.

    Parameters
    ----------
    inputs : SiteInputs
        The engine's inputs, in the working CRS (``inputs.crs_name`` names it).
    crs_wkt : str
        The working CRS as WKT (for the outputs' layers).
    description : dict
        What was read, for the findings.json ``inputs`` (paths or layer sources, the DEM and its unit).
    source : object, optional
        The adapter's own record of the read (the reader's ``LoadedSite``, the QGIS ``Snapshot``), for its front end.
    contour_count : int, optional
        Existing-grade contour features the submission holds (a ``contours`` layer), for the completeness list.
    """

    inputs: SiteInputs
    crs_wkt: str
    description: dict[str, object] = field(default_factory=dict)
    source: object = None
    contour_count: int = 0


@runtime_checkable
class SiteSource(Protocol):
    """Anything that reads a site into a :class:`SiteRead` for a rule pack (the pack decides how far around the site to read)."""

    def read(self, pack: RulePack) -> SiteRead:
        """Read the site's layers and DEM window; raise the adapter's input error when they cannot be used."""
        ...


@dataclass(frozen=True)
class ReadSite:
    """A site already read, as a :class:`SiteSource` (a front end that reads before it checks hands it to :func:`check_site`)."""

    site: SiteRead

    def read(self, pack: RulePack) -> SiteRead:
        """The site as it was read (``pack`` placed its windows then)."""
        return self.site


class SiteReviewError(LookupError, StormwaterError):
    """The check named something the site does not hold (a site parcel, a feature the pack's rules need); ``str(exc)`` says what."""


class ProjectClassError(ValueError, StormwaterError):
    """The stated project class is not one of :data:`~stormwater_plugin.core.model.PROJECT_CLASSES`."""


@dataclass(frozen=True)
class ReviewOptions:
    """What a front end adds to a site for its review, as plain values (every field optional).

    Parameters
    ----------
    overrides : sequence of Override
        The reviewer's decisions.
    accuracy : sequence of str
        Stated horizontal accuracy, ``ROLE=FT`` items in feet at 95 %
        (:func:`~stormwater_plugin.services.accuracy.apply_accuracy`).
    dem_vertical_accuracy_ft : float or str, optional
        The DEM's stated vertical accuracy, feet at 95 %.
    project_class : {"exempt", "minor", "major"}, optional
        The project class the reviewer states (``--class``, the dock's and Processing's class choice); it wins over the
        computed class, which the document keeps (``class_source`` ``override``). ``None``: computed from the site.
    moves, previous, previous_label, progress
        As :func:`~stormwater_plugin.services.review.check`.
    annotate : callable, optional
        Edits the findings document in place after the check (the context catalog names its sources), through
        :meth:`~stormwater_plugin.services.review.Review.edited`.
    completeness : bool
        Add the document's ``completeness`` section: what the submission must show for the computed class.
    incremental : bool
        Keep what the next incremental check of this site needs (``review.basis``, :mod:`~stormwater_plugin.services.incremental`).
    basis : CheckBasis, optional
        The last check of the same site (its ``review.basis``): the rules an edit since cannot reach are taken from it
        (implies ``incremental``). The findings are the full check's.
    """

    overrides: Sequence[Override] = ()
    accuracy: Sequence[str] = ()
    dem_vertical_accuracy_ft: float | str | None = None
    project_class: str | None = None
    moves: bool = True
    previous: Mapping[str, object] | None = None
    previous_label: str = ""
    progress: Callable[[float], bool] | None = None
    annotate: Callable[[dict[str, object]], None] | None = None
    completeness: bool = False
    incremental: bool = False
    basis: CheckBasis | None = None

    def __post_init__(self) -> None:
        if self.project_class is not None and self.project_class not in PROJECT_CLASSES:
            raise ProjectClassError(f"project class '{self.project_class}': give one of {', '.join(PROJECT_CLASSES)}")


@dataclass(frozen=True)
class SiteReview:
    """A site's review as :func:`check_site` made it.

    Parameters
    ----------
    site : SiteRead
        What the source read (its ``inputs`` carry the stated accuracy).
    review : Review
        The review (``review.document`` is its typed document, with its ``completeness`` section when asked for;
        :func:`~stormwater_plugin.services.findings_doc.findings_json` writes it).
    completeness : Completeness or None
        The completeness list, when :attr:`ReviewOptions.completeness` asked for it.
    """

    site: SiteRead
    review: Review
    completeness: Completeness | None = None


def check_site(source: SiteSource, pack: RulePack, options: ReviewOptions | None = None) -> SiteReview:
    """Review a site: read it, state its accuracy, check it, annotate its sources, list what the submission lacks.

    The one use case every front end calls with its own :class:`SiteSource`.

    Parameters
    ----------
    source : SiteSource
    pack : RulePack
    options : ReviewOptions, optional

    Returns
    -------
    SiteReview

    Raises
    ------
    AccuracyError
        A stated accuracy is not a number of feet (``exc.part`` says which statement).
    ProjectClassError
        The stated class is not a project class.
    SiteReviewError
        The check named something the site does not hold.
    ComparisonError
        ``previous`` is not a review of the same kind.
    StormwaterError
        The source's own input error, raised by its ``read``.
    """
    opts = options or ReviewOptions()
    recorder = Recorder(opts.basis) if opts.incremental or opts.basis is not None else None
    # the read's decisions (placement, the DEM window) reuse, by content, the last check's as the rules do (core.derived)
    with using(recorder.derived if recorder is not None else None, settle=False):
        site = read_stated(source, pack, opts)
    try:
        review = check(site.inputs, pack, opts.overrides, crs_name=site.inputs.crs_name, inputs_description=site.description, moves=opts.moves,
                       previous=opts.previous, previous_label=opts.previous_label, progress=opts.progress, recorder=recorder)
    except LookupError as exc:
        raise SiteReviewError(str(exc).strip("'\"")) from exc
    if opts.annotate is not None:  # the review's API: the document is not edited in place
        review = review.edited(opts.annotate)
    completeness = None
    if opts.completeness:
        completeness = site_completeness(site.inputs, pack, review.result.project_class, site.contour_count, review.result)
        review = review.with_completeness(completeness.as_dict())
    return SiteReview(site, review, completeness)


def read_stated(source: SiteSource, pack: RulePack, options: ReviewOptions | None = None) -> SiteRead:
    """Read ``source`` and state what the options state of it (accuracy, project class): the first half of :func:`check_site`,
    shared with :func:`site_envelope`.

    The sources read layers only; the class stated in ``options`` goes on the inputs here, for every front end alike.

    Raises
    ------
    AccuracyError
        A stated accuracy is not a number of feet.
    StormwaterError
        The source's own input error.
    """
    opts = options or ReviewOptions()
    site = source.read(pack)
    if opts.accuracy or opts.dem_vertical_accuracy_ft is not None:  # nothing stated: the source's inputs keep their own (none from the readers)
        apply_accuracy(site.inputs, opts.accuracy, opts.dem_vertical_accuracy_ft)
    if opts.project_class is not None:  # none stated: the inputs keep their own (none from the sources)
        site.inputs.class_override = opts.project_class
    return site


def site_envelope(source: SiteSource, pack: RulePack, options: ReviewOptions | None = None, *, device_type: str, high_traffic: bool | None,
                  cell_ft: float = DEFAULT_CELL_FT) -> tuple[SiteRead, SitingEnvelope]:
    """Where a device may go on the site's parcel: the site read as :func:`check_site` reads it, then the siting envelope.

    Parameters
    ----------
    source : SiteSource
    pack : RulePack
        The pack the source reads for (its reach sets the DEM window) and the envelope applies.
    options : ReviewOptions, optional
        As for :func:`check_site` (the stated accuracy and project class go on the inputs the same way).
    device_type, high_traffic, cell_ft
        As :func:`~stormwater_plugin.services.siting.find_envelope`.

    Raises
    ------
    SitingError
        No site parcel, an unknown device type, or a rule the envelope cannot read.
    """
    site = read_stated(source, pack, options)
    env = find_envelope(site.inputs, pack, device_type=device_type, high_traffic=high_traffic, cell_ft=cell_ft)
    return site, env


def site_completeness(inputs: SiteInputs, pack: RulePack, project_class: str | None, contour_count: int = 0,
                      result: CheckResult | None = None) -> Completeness:
    """What the submission must show for ``project_class`` and what it lacks: the one reading of completeness.

    A template package's layer left undrawn (a ``template_layer_not_drawn`` warning of the read) counts as
    not shown, whichever front end read it.

    Parameters
    ----------
    inputs : SiteInputs
        As read (its layers and warnings).
    pack : RulePack
    project_class : str or None
        The class the review computed (or was given).
    contour_count : int
        Existing-grade contour features in the submission.
    result : CheckResult, optional
        The check's result (the footprints its undetermined findings need).
    """
    undrawn = {w.layer for w in inputs.warnings if w.code == "template_layer_not_drawn" and w.layer}
    return check_completeness(pack, inputs.layers, project_class, has_dem=inputs.dem is not None, contour_count=contour_count, undrawn=undrawn,
                              result=result)


def review_site(
    source: SiteSource,
    pack: RulePack,
    overrides: Sequence[Override] = (),
    *,
    moves: bool = True,
    previous: Mapping[str, object] | None = None,
    previous_label: str = "",
    progress: Callable[[float], bool] | None = None,
) -> tuple[SiteRead, Review]:
    """Read ``source`` and review it: the one path from any front end's inputs to a :class:`Review`.

    Parameters
    ----------
    source : SiteSource
    pack : RulePack
    overrides, moves, previous, previous_label, progress
        As :func:`~stormwater_plugin.services.review.check`.

    Returns
    -------
    (SiteRead, Review)
        What was read, and its review (``review.document`` is its typed document).
    """
    done = check_site(source, pack, ReviewOptions(overrides, moves=moves, previous=previous, previous_label=previous_label, progress=progress))
    return done.site, done.review


__all__ = [
    "ProjectClassError", "ReadSite", "ReviewOptions", "SiteRead", "SiteReview", "SiteReviewError", "SiteSource", "check_site", "read_stated",
    "review_site", "site_envelope", "site_completeness", "working_crs_text",
]
