"""The compiled algorithm templates of the numerics layer (one file per algorithm).

Each file is a template of :mod:`asymptotics.rendering.templates`: ordinary Python whose kernels,
from the marker line on, are copied into the rendered module that *includes* it; a template that
iterates calls its problem through placeholders defined above the marker.
"""

from pathlib import Path

#: The folder of the numerics templates.
FOLDER = Path(__file__).resolve().parent
