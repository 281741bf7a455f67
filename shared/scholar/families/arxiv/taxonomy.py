"""The arXiv category taxonomy, held statically: subject classes, their names, groups and archives.

Static on purpose: the taxonomy changes a few times a decade, and holding it here makes category
validation and archive expansion free (no request, no cache). Source: arxiv.org/category_taxonomy
(arxiv-base ``arxiv/taxonomy/definitions.py``), active categories only.

An *archive* is the part of a code before the dot (``astro-ph`` of ``astro-ph.GA``). An archive that
was subdivided still holds papers filed under its bare code before the split (``astro-ph`` papers of
1992-2009), and some archives absorbed older ones (``alg-geom`` → ``math``); searching an archive
therefore means its subject classes plus those legacy codes (``archive_codes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import get_close_matches

GROUPS: tuple[str, ...] = ("cs", "econ", "eess", "math", "physics", "q-bio", "q-fin", "stat")


@dataclass(frozen=True)
class Category:
    code: str
    name: str
    group: str

    @property
    def archive(self) -> str:
        return self.code.split(".", 1)[0]


def _group(group: str, rows: str) -> tuple[Category, ...]:
    out = []
    for line in rows.strip().splitlines():
        code, name = line.strip().split(" ", 1)
        out.append(Category(code, name.strip(), group))
    return tuple(out)


CATEGORIES: tuple[Category, ...] = (
    *_group(
        "cs",
        """
        cs.AI Artificial Intelligence
        cs.AR Hardware Architecture
        cs.CC Computational Complexity
        cs.CE Computational Engineering, Finance, and Science
        cs.CG Computational Geometry
        cs.CL Computation and Language
        cs.CR Cryptography and Security
        cs.CV Computer Vision and Pattern Recognition
        cs.CY Computers and Society
        cs.DB Databases
        cs.DC Distributed, Parallel, and Cluster Computing
        cs.DL Digital Libraries
        cs.DM Discrete Mathematics
        cs.DS Data Structures and Algorithms
        cs.ET Emerging Technologies
        cs.FL Formal Languages and Automata Theory
        cs.GL General Literature
        cs.GR Graphics
        cs.GT Computer Science and Game Theory
        cs.HC Human-Computer Interaction
        cs.IR Information Retrieval
        cs.IT Information Theory
        cs.LG Machine Learning
        cs.LO Logic in Computer Science
        cs.MA Multiagent Systems
        cs.MM Multimedia
        cs.MS Mathematical Software
        cs.NA Numerical Analysis
        cs.NE Neural and Evolutionary Computing
        cs.NI Networking and Internet Architecture
        cs.OH Other Computer Science
        cs.OS Operating Systems
        cs.PF Performance
        cs.PL Programming Languages
        cs.RO Robotics
        cs.SC Symbolic Computation
        cs.SD Sound
        cs.SE Software Engineering
        cs.SI Social and Information Networks
        cs.SY Systems and Control
        """,
    ),
    *_group(
        "econ",
        """
        econ.EM Econometrics
        econ.GN General Economics
        econ.TH Theoretical Economics
        """,
    ),
    *_group(
        "eess",
        """
        eess.AS Audio and Speech Processing
        eess.IV Image and Video Processing
        eess.SP Signal Processing
        eess.SY Systems and Control
        """,
    ),
    *_group(
        "math",
        """
        math.AC Commutative Algebra
        math.AG Algebraic Geometry
        math.AP Analysis of PDEs
        math.AT Algebraic Topology
        math.CA Classical Analysis and ODEs
        math.CO Combinatorics
        math.CT Category Theory
        math.CV Complex Variables
        math.DG Differential Geometry
        math.DS Dynamical Systems
        math.FA Functional Analysis
        math.GM General Mathematics
        math.GN General Topology
        math.GR Group Theory
        math.GT Geometric Topology
        math.HO History and Overview
        math.IT Information Theory
        math.KT K-Theory and Homology
        math.LO Logic
        math.MG Metric Geometry
        math.MP Mathematical Physics
        math.NA Numerical Analysis
        math.NT Number Theory
        math.OA Operator Algebras
        math.OC Optimization and Control
        math.PR Probability
        math.QA Quantum Algebra
        math.RA Rings and Algebras
        math.RT Representation Theory
        math.SG Symplectic Geometry
        math.SP Spectral Theory
        math.ST Statistics Theory
        """,
    ),
    *_group(
        "physics",
        """
        astro-ph.CO Cosmology and Nongalactic Astrophysics
        astro-ph.EP Earth and Planetary Astrophysics
        astro-ph.GA Astrophysics of Galaxies
        astro-ph.HE High Energy Astrophysical Phenomena
        astro-ph.IM Instrumentation and Methods for Astrophysics
        astro-ph.SR Solar and Stellar Astrophysics
        cond-mat.dis-nn Disordered Systems and Neural Networks
        cond-mat.mes-hall Mesoscale and Nanoscale Physics
        cond-mat.mtrl-sci Materials Science
        cond-mat.other Other Condensed Matter
        cond-mat.quant-gas Quantum Gases
        cond-mat.soft Soft Condensed Matter
        cond-mat.stat-mech Statistical Mechanics
        cond-mat.str-el Strongly Correlated Electrons
        cond-mat.supr-con Superconductivity
        gr-qc General Relativity and Quantum Cosmology
        hep-ex High Energy Physics - Experiment
        hep-lat High Energy Physics - Lattice
        hep-ph High Energy Physics - Phenomenology
        hep-th High Energy Physics - Theory
        math-ph Mathematical Physics
        nlin.AO Adaptation and Self-Organizing Systems
        nlin.CD Chaotic Dynamics
        nlin.CG Cellular Automata and Lattice Gases
        nlin.PS Pattern Formation and Solitons
        nlin.SI Exactly Solvable and Integrable Systems
        nucl-ex Nuclear Experiment
        nucl-th Nuclear Theory
        physics.acc-ph Accelerator Physics
        physics.ao-ph Atmospheric and Oceanic Physics
        physics.app-ph Applied Physics
        physics.atm-clus Atomic and Molecular Clusters
        physics.atom-ph Atomic Physics
        physics.bio-ph Biological Physics
        physics.chem-ph Chemical Physics
        physics.class-ph Classical Physics
        physics.comp-ph Computational Physics
        physics.data-an Data Analysis, Statistics and Probability
        physics.ed-ph Physics Education
        physics.flu-dyn Fluid Dynamics
        physics.gen-ph General Physics
        physics.geo-ph Geophysics
        physics.hist-ph History and Philosophy of Physics
        physics.ins-det Instrumentation and Detectors
        physics.med-ph Medical Physics
        physics.optics Optics
        physics.plasm-ph Plasma Physics
        physics.pop-ph Popular Physics
        physics.soc-ph Physics and Society
        physics.space-ph Space Physics
        quant-ph Quantum Physics
        """,
    ),
    *_group(
        "q-bio",
        """
        q-bio.BM Biomolecules
        q-bio.CB Cell Behavior
        q-bio.GN Genomics
        q-bio.MN Molecular Networks
        q-bio.NC Neurons and Cognition
        q-bio.OT Other Quantitative Biology
        q-bio.PE Populations and Evolution
        q-bio.QM Quantitative Methods
        q-bio.SC Subcellular Processes
        q-bio.TO Tissues and Organs
        """,
    ),
    *_group(
        "q-fin",
        """
        q-fin.CP Computational Finance
        q-fin.EC Economics
        q-fin.GN General Finance
        q-fin.MF Mathematical Finance
        q-fin.PM Portfolio Management
        q-fin.PR Pricing of Securities
        q-fin.RM Risk Management
        q-fin.ST Statistical Finance
        q-fin.TR Trading and Market Microstructure
        """,
    ),
    *_group(
        "stat",
        """
        stat.AP Applications
        stat.CO Computation
        stat.ME Methodology
        stat.ML Machine Learning
        stat.OT Other Statistics
        stat.TH Statistics Theory
        """,
    ),
)

_BY_LOWER: dict[str, str] = {c.code.lower(): c.code for c in CATEGORIES}

# Archives absorbed into a subdivided archive; their papers keep the old bare code.
LEGACY_ARCHIVES: dict[str, tuple[str, ...]] = {
    "cond-mat": ("mtrl-th", "supr-con"),
    "cs": ("cmp-lg",),
    "math": ("alg-geom", "dg-ga", "funct-an", "q-alg"),
    "nlin": ("adap-org", "chao-dyn", "comp-gas", "patt-sol", "solv-int"),
    "physics": ("acc-phys", "ao-sci", "atom-ph", "bayes-an", "chem-ph", "plasm-ph"),
}
_LEGACY_CODES: frozenset[str] = frozenset(code for codes in LEGACY_ARCHIVES.values() for code in codes)

# Archives that have subject classes (code.XX); an archive without them is itself a leaf (hep-th).
SUBDIVIDED: frozenset[str] = frozenset(c.archive for c in CATEGORIES if "." in c.code)


def categories(group: str | None = None) -> list[Category]:
    """Every subject class, or those of one top-level group, in taxonomy order."""
    return [c for c in CATEGORIES if group is None or c.group == group]


def canonical(code: str) -> str | None:
    """The canonical spelling of a leaf, archive or legacy code (case-insensitive), or None if unknown."""
    lower = code.strip().lower()
    if lower in _BY_LOWER:
        return _BY_LOWER[lower]
    if lower in SUBDIVIDED or lower in _LEGACY_CODES:
        return lower
    return None


def is_archive(code: str) -> bool:
    """True for a subdivided archive's bare code (``astro-ph``, ``cs``), which stands for its whole subtree."""
    return code in SUBDIVIDED


def archive_codes(archive: str) -> tuple[str, ...]:
    """What searching an archive means: its subject classes, then its own bare code, then absorbed archives."""
    leaves = tuple(c.code for c in CATEGORIES if c.archive == archive and "." in c.code)
    return (*leaves, archive, *LEGACY_ARCHIVES.get(archive, ()))


def archive_leaves(archive: str) -> frozenset[str]:
    """The subject classes of a subdivided archive (``astro-ph.CO`` …)."""
    return frozenset(c.code for c in CATEGORIES if c.archive == archive and "." in c.code)


def suggest(code: str) -> list[str]:
    """Up to three known codes that look like ``code`` (for an unknown_category hint)."""
    known = [*_BY_LOWER, *SUBDIVIDED]
    return [_BY_LOWER.get(m, m) for m in get_close_matches(code.strip().lower(), known, n=3, cutoff=0.6)]
