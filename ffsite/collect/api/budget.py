"""The budget: a call is admitted only when the worst case of everything in flight fits.

A call's worst case is what its request could cost at most: pessimistic tokens in and
every token of its `max_tokens` out, at the price table's rates times the *markup*, the
most any answer so far was billed above the table's figure for the tokens it used (a
provider may bill more than the table says, and only its bills tell by how much).

- Until the first answer is billed, one call is in flight: the table may be wrong by
  any factor, and a whole wave of calls sent on its word could overshoot tenfold.
- A call is admitted when what is spent plus the worst cases of the calls in flight and
  its own, all at the current markup, stays within the limit.
- A call that does not fit waits while others are in flight: their bills, reconciled as
  they arrive, free what their worst cases held.  When nothing is in flight and it still
  does not fit, the run stops there, and every later call is refused too, so a run stops
  at one clear point instead of trickling on with small calls.

So a run passes its limit only by a bill higher than its markup foresaw: the first one,
which shows the provider's rate, or one above every earlier bill.  A provider billing a
steady multiple of the table makes a run pass its limit by at most one call; bills that
keep climbing could pass it by one call per call in flight at each climb.
"""

from __future__ import annotations

import asyncio


class Budget:
    """`await budget.admit(worst)`, then `settle` (an answer) or `release` (none)."""

    def __init__(self, limit: float | None):
        self.limit = limit  # USD; None: no budget, every call is admitted
        self.spent = 0.0
        self.stopped = False
        self.markup = 1.0
        self._held = 0.0  # the table worst cases of the calls in flight
        self._in_flight = 0
        self._billed = False
        self._ended = asyncio.Event()  # replaced each time a call ends (see `_end`)

    async def admit(self, worst_case: float) -> bool:
        """Wait until a call whose worst case at table prices is `worst_case` fits; False
        when it never can (the run stops)."""
        if self.limit is None:
            return True
        while not self.stopped:
            fits = self.spent + (self._held + worst_case) * self.markup <= self.limit
            if fits and (self._billed or not self._in_flight):
                self._held += worst_case
                self._in_flight += 1
                return True
            if not fits and not self._in_flight:
                self.stopped = True
            else:
                await self._ended.wait()
        return False

    def settle(self, worst_case: float, bill: float | None, table: float | None) -> None:
        """An admitted call was answered: `bill` is what it counts (`cost.budget_cost`;
        None when unknown: then its worst case does), `table` the table's figure for the
        tokens it used."""
        if self.limit is None:
            return
        if bill is None:
            bill = worst_case * self.markup
        else:
            self._billed = True
            # Above the table's rates, or above the worst case itself (more tokens
            # reported than the request allowed): later calls are held at that rate.
            for base in (table or 0.0, worst_case):
                if base > 0:
                    self.markup = max(self.markup, bill / base)
        self.spent += bill
        self._end(worst_case)

    def release(self, worst_case: float) -> None:
        """An admitted call ended without an answer (failed, or the run was stopped): it
        counts nothing."""
        if self.limit is not None:
            self._end(worst_case)

    def _end(self, worst_case: float) -> None:
        self._in_flight -= 1
        # Sums of floats drift: with nothing in flight nothing is held.
        self._held = self._held - worst_case if self._in_flight else 0.0
        # Wake every waiter: each sees the new state and decides again.  A fresh event,
        # so a waiter that starts waiting after this one waits for the next end.
        ended, self._ended = self._ended, asyncio.Event()
        ended.set()
