"""tokenpilot: a token-aware control plane for LLM inference."""

import glob
import os
import warnings

__version__ = "0.1.0"


def _warn_if_stale_build() -> None:
    """The simulator's hot modules are compiled in place by mypyc (``tokenpilot/setup.py``). A
    compiled module older than its source is a build from before an edit, and Python would
    import it instead of the edited file: say so (``make compile`` rebuilds it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for so in glob.glob(os.path.join(here, "*", "*.so")):
        folder, name = os.path.split(so)
        py = os.path.join(folder, name.split(".", 1)[0] + ".py")
        if os.path.exists(py) and os.path.getmtime(py) > os.path.getmtime(so) + 1:
            warnings.warn(f"{so} is older than {os.path.basename(py)}: this process runs the "
                          "code as it was before your edit; run `make compile` (or delete the "
                          ".so files to run the source)", stacklevel=2)
            return


_warn_if_stale_build()
