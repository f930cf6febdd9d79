"""Weyl's eigenvalue inequality, checked with the `theorems` suite: the worked example of a plugin (an installable
package whose results `theorems` treats like its built-in papers'). Importing it registers its results."""

from . import eigenvalue_inequality  # noqa: F401  (registers weyl.eigenvalue_inequality)
