"""The one exception type a user should ever see.

Anything the user can fix (a bad file, a missing option, an unknown model) raises
`FfsiteError` with a single line that names the cause and what to do.  The CLI prints
that line and exits non-zero; every other exception is a bug and keeps its traceback.
`ParameterError` is the FfsiteError about a parameter's value, which the CLI words as a flag.
"""

from __future__ import annotations

from collections.abc import Callable


class FfsiteError(Exception):
    """A user-facing error: one line naming the file/field/row and what to do."""


class ParameterError(FfsiteError):
    """A user-facing error about the value of one or more named parameters.

    The library does not know the CLI's flags, so `message` names each parameter in
    `params` as a `{name}` placeholder: str() shows the parameter's own name (`split_by`),
    and the CLI shows the flag a user typed (`--split-by`) through `worded`.  `param` is
    the parameter at fault; `others` are parameters the message also names.
    """

    def __init__(self, message: str, param: str, *others: str) -> None:
        self.template = message
        self.param = param
        self.params = (param, *others)
        super().__init__(self.worded(lambda name: name))

    def worded(self, name_of: Callable[[str], str]) -> str:
        """The message with each parameter named as `name_of(parameter)`."""
        message = self.template
        for param in self.params:
            message = message.replace("{" + param + "}", name_of(param))
        return message
