"""The one exception type a user should ever see.

Anything the user can fix (a bad file, a missing option, an unknown model) raises
`FfsiteError` with a single line that names the cause and what to do.  The CLI prints
that line and exits non-zero; every other exception is a bug and keeps its traceback.
"""


class FfsiteError(Exception):
    """A user-facing error: one line naming the file/field/row and what to do."""
