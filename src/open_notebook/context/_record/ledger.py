"""What a selection has spent and decided so far: the room left, per group, and each candidate's
fate (:mod:`open_notebook.context._record.select`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from open_notebook.context._dedup import DEFAULT_NEAR_THRESHOLD
from open_notebook.context._model import Candidate, Dropped, DropReason, Placed
from open_notebook.context._record.fit import FitParams

# No block (label included) is smaller than this: below it the budget is spent.
MIN_BLOCK_TOKENS: Final = 3


@dataclass(frozen=True, slots=True)
class SelectOptions:
    budget: int | None = None
    per_group_cap: int | None = None
    min_score: float | None = None
    near_threshold: float | None = DEFAULT_NEAR_THRESHOLD
    # Plan the last round of reads: every unread text that could still enter, not a best guess.
    superset: bool = False


@dataclass(frozen=True, slots=True)
class Deferred:
    candidate: Candidate
    reserved: int
    tight: bool = False


@dataclass(slots=True)
class SelectState:
    free: int
    sep: int
    options: SelectOptions
    params: FitParams
    group_used: dict[str, int] = field(default_factory=dict)
    placed: list[Placed] = field(default_factory=list)
    deferred: list[Deferred] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    # Set at the first unread candidate of a superset plan: the room no longer shrinks.
    frozen: bool = False

    @property
    def spent(self) -> bool:
        """No block fits any more (the budget is charged to below the smallest block)."""
        return self.options.budget is not None and self.free - self.sep < MIN_BLOCK_TOKENS

    def room(self, candidate: Candidate) -> int:
        room = self.free - self.sep
        if self.options.per_group_cap is not None:
            used = self.group_used.get(candidate.group, 0)
            room = min(room, self.options.per_group_cap - used)
        return room

    def charge(self, candidate: Candidate, tokens: int) -> None:
        self.free -= tokens + self.sep
        self.group_used[candidate.group] = self.group_used.get(candidate.group, 0) + tokens

    def release(self, candidate: Candidate, tokens: int) -> None:
        self.free += tokens + self.sep
        self.group_used[candidate.group] -= tokens

    def drop(self, candidate: Candidate, original: int | None = None) -> None:
        # Once a text is missing, this selection only lists what to read: no decision is kept.
        if not self.unread:
            self.dropped.append(Dropped(candidate, DropReason.BUDGET, tokens_original=original))
