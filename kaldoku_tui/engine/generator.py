"""Random puzzles with exactly one solution.

A candidate is a random latin square cut into Keen-style cages. A judge says whether
it is good enough (for now: unique); when it is not, a repair splits a cage the two
found solutions disagree on, which only adds constraints, and the judge looks again.
A unique candidate too easy for the level asked has, where HARDENED_OPS says, two
neighbouring cages merged at a time while it stays unique, which only loosens it.
Everything random comes from one `random.Random(seed)`, so a seed, size and options
give the same puzzle on every machine.
"""

from __future__ import annotations

import random
import secrets
from bisect import bisect_right
from functools import lru_cache
from math import prod
from typing import Callable, Iterable, Iterator

from kaldoku_tui.engine.arithmetic import shape_of
from kaldoku_tui.engine.cages import (DOMINOES_IN_FOUR, MAX_CELLS, beside_cells, board_cells, digits_ops, linked,
                                      make_cages, random_blocks, shape_links, singles_allowed, split_cage)
from kaldoku_tui.engine.draws import in_random_order
from kaldoku_tui.engine.errors import Stopped as Stopped  # where callers catch it
from kaldoku_tui.engine.fillings import CageTooLarge, fillings, fillings_bound
from kaldoku_tui.engine.kinds import (HIDDEN_OPS, LEVELS, MAX_SIZE, MIN_SIZE, OP_SETS, levels_for, offered_levels,
                                      why_impossible)
from kaldoku_tui.engine.latin import random_isotope, random_latin_square
from kaldoku_tui.engine.puzzle import HIDDEN, Cage, Cell, Grid, Puzzle, PuzzleError, combine
from kaldoku_tui.engine.solver import (ALL_DIGITS, DIGITS_OF, Closed, Proof, Undecided, cage_propagation, closure,
                                      closure_since, rival, rival_since)
from kaldoku_tui.engine.squares import (COUNTED_UP_TO, other_solution, rival_of_any_clues, square_index,
                                       squares_meeting)
from kaldoku_tui.engine.steps import Marks
from kaldoku_tui.engine.techniques import layout, propagate, tier_needed

MAX_CANDIDATES = 5000
"""Candidates tried for one leveled puzzle before giving up with an error."""

SQUARE_REUSE = 8
"""Candidates cut from isotopes of one latin square before drawing another: an isotope
costs far less than a square, but keeps its isotopy class. Up to COUNTED_UP_TO, each
candidate draws one of the listed squares instead, which costs less again."""


BLOCKS_REUSE = 4
"""Candidates cut from one draw of blocks on a 4×4 board where a candidate with a rival
is dropped (`drops` and `mul_drops` in `leveled`), each with its own square: blocks cost
some twenty times a square there, and few candidates are kept (4×4 extreme 1 in 250, × only
normal 1 in 40), so candidates sharing blocks are kept about as often as any. Seeds 100..299,
least of three runs, median / mean ms without and with, twice: 4×4 extreme 22.5 / 32.5, 25.3
/ 37.0 → 18.8 / 26.2, 20.5 / 28.3; × only normal 2.6 / 3.8, 2.2 / 3.0 → 2.1 / 2.8, 1.7 / 2.2.
Eight at extreme: 21.4 / 29.3, 21.9 / 29.2. Not at 3×3, whose few layouts differ more (× only
normal, seeds 0..99: 6.2 / 9.1, 6.6 / 9.7 → 8.8 / 12.0, 11.6 / 15.8)."""


RIVAL_SPLIT_TRIES = 3
"""Random splits of a cage tried for one that a rival solution does not meet: a split
it meets leaves the rival to be found again (before, 59% of the rivals found at 9×9 hard)."""


MUL_DOMINOES_IN_FOUR = 1
"""Of four lone cells, how many become dominoes in a × only puzzle above easy (not 3):
a × domino so often pins its digits that with Keen's cages 14 in 1,000 unique 4×4
candidates were above easy, and with larger cages 75 (4×4 normal 44 → 9 ms median)."""


HARDENED_OPS = frozenset({"addmul", "mul", "hidden"})
"""Operator sets whose candidates, when too easy for a level from hard up, have
neighbouring cages merged while they stay unique (`_harden`) instead of being thrown
away: with + and × or × alone, few candidates are hard enough as cut (4×4 × only:
one extreme in 3,000 random cagings). With all four operations shown, the candidates are hard
often enough that merging cost more than it saved (8×8 extreme 0.15 → 0.31 s median)."""


JUDGED_MERGES_UP_TO = 6
"""The largest size at which a merge that makes the puzzle too hard for hard or extreme
is passed over; above it the splits of `leveled` undo it. Judging costs a solve at the
level for every merge kept, which paid at 6×6 × only extreme (median 0.63 → 0.39 s over 20
seeds) but not above (7×7 + × extreme p99 1.5 → 4.1 s; 9×9 + × extreme's first seed over 40 s)."""


STEPS_BACK_FROM = 9
"""From this size up, a + × or × only candidate that a split of `leveled` makes too easy for
extreme or unreasonable steps back to the puzzle before the split (its solves resumed as they
were) and splits another open cage, instead of being thrown away: at 9×9 + × extreme (seeds
100..129) 87 of 126 candidates were thrown away so, after some ten merges each (~40 ms a
merge). Held-out seeds 300..359, CPU s median / p99 / most, before and after: + × extreme
0.68 / 3.55 / 4.56 → 0.45 / 2.28 / 2.43; × only extreme 0.36 / 1.95 / 3.00 → 0.23 / 1.36 /
1.43; × only unreasonable 0.25 / 2.90 / 4.40 → 0.21 / 1.73 / 4.59; + × unreasonable 0.13 /
1.29 / 1.45 → 0.13 / 1.44 / 1.83. Not measured below 9×9. Tried and dropped: a cap of 2 or 4
steps back a candidate (a seed of 14.8 s, of 4.6 s), and a uniqueness search of at most 100
nodes for a merge (most 4.7 s)."""


STEPS_BACK_ALL = (4,)
"""The tiers at which a 9×9 all-operator candidate also steps back (STEPS_BACK_FROM), from a
split or from a new clue (`_reclue_open_cage`, when no split is left) that makes it too easy:
a new clue starts both solves over, and a run of them mostly ends too easy (seeds 0..29: 372
new clues, 290 candidates for 30 puzzles). A step back from a new clue resumes the solves as
they were before it. Seeds 0..59, interleaved with edition 13, CPU: sum of times 0.71×,
median 173 → 138 ms, most 1.19 → 0.67 s. At unreasonable it never came about (seeds 0..59
and 100..159 gave the same puzzles), so that level is left as it was."""


MUL_MERGE_BACKS = 4
"""How many times a × only candidate that `_harden` finds no merge left for, still too easy,
goes back a merge and tries the next one there, before it is thrown away: a dead end was
the end of nearly every candidate (5×5 × only extreme, seeds 115 and 157: 1,170 of 1,172),
and with × alone a merge turned down is known without a search (`_kept`). 5×5 × only
extreme, median and most over seeds 0..59 and 100..159: none 0.23 / 2.04 s and 0.25 /
2.25 s, four 0.22 / 1.42 s and 0.26 / 1.38 s (other counts, 30 seeds: none 12.7 s in all,
two 10.1, four 10.0, eight 11.9, thirty 16.1). With + and × (its merged clue dealt again)
6×6 extreme was slower (median 0.12 → 0.19 s over 30 seeds): none there."""


MERGE_GLANCE = 20
"""Search nodes a merge of `_harden` is given to show a rival before it is graded: a rival
mostly shows within a few nodes, and a merge that tiers below the level finish is unique
without the proof, the most of a search (9×9 + × unreasonable, seed 104: 16 merges kept
too easy, each proved unique by a search of ~60 ms). The same puzzles."""


BUDGETED_FROM = 8
RIVAL_NODES = 300
"""From this size up, a hidden operator puzzle's uniqueness search gives up after this many
nodes: with every operation hidden the cages allow so many fillings that nothing settles
(80 of 81 cells left open) and proving a 9×9 unique took 2,000 to 10,000 nodes, 0.4 to 2 s,
and once 67,000 (97% of a 16 s seed). A leveled candidate then goes on to the human-style
solve, whose sound deductions finish only a puzzle with one solution; a merge is not kept;
a candidate of no level, or for unreasonable, takes a narrower clue and is searched again
(`unique`); a normal one is not searched at all (`_normal`). (9×9 hidden hard, 5 seeds:
2,000 nodes median 2.1 s; 300 nodes 0.66 s.)"""

NARROWED_NODES = 100
"""The budget of the uniqueness search where a candidate is narrowed until the search
decides (no level asked, or unreasonable): a board it decides sooner is tighter, and the
trials that grade an unreasonable one cost far less on it. 8×8 hidden unreasonable, seeds
100..139, median and most: 300 nodes 0.39 s and 5.1 s (one tier 5 solve, nearly all of
it); 100 nodes 0.15 s and 0.98 s; 60 nodes 0.09 s and 0.81 s; 40 nodes 0.07 s and 0.25 s
(9×9, seeds 100..129: 100 nodes 0.16 s and 0.48 s; 40 nodes 0.13 s and 0.83 s)."""

NARROWED_FROM = 6
"""From this size up (below BUDGETED_FROM, where every search has a budget), a hidden
operator extreme or unreasonable candidate is searched on NARROWED_NODES too. Unreasonable
is narrowed until that search decides: on a loose 7×7 board the trials that grade it took up
to 3 s. Extreme, below LOGIC_DECIDES_BELOW, goes on to the solve, which proves it unique if
it finishes: 7×7 hidden extreme, seeds 0..59, 100..159, 200..259, 300..359, sum of CPU s
(and second slowest): unbudgeted 23.0 (1.15), 27.9 (2.11), 26.7 (1.85), 27.3 (1.92); with
20.9 (1.58), 20.0 (1.48), 17.7 (1.12), 24.7 (1.49). From 6×6 since then (seeds 300..359,
0..59, 100..159, sum and slowest): hidden unreasonable 5.50 (1.40), 5.55 (0.58), 7.22 (1.12)
→ 4.06 (0.65), 4.83 (0.58), 4.75 (0.43); extreme 18.8 (1.32), 18.3 (1.78), 14.3 (1.68) → 17.9
(1.72), 14.3 (0.85), 13.0 (0.84)."""

LOGIC_DECIDES_BELOW = 5
"""Below this tier, a leveled candidate whose uniqueness search spent its budget goes on to
the human-style solve; from it up, it is narrowed until the search decides (`unique`):
trials on a board that nothing settles cost far more (9×9 hidden unreasonable's first
seed: 102 s, nearly all in trials)."""


COUNTED_OPS = frozenset({"addmul", "mul"})
"""Operator sets whose small boards (up to COUNTED_UP_TO) are judged unique by their every
latin square (`squares`) rather than by the search: 4×4 × only extreme tried some 3,000
merges a puzzle, 56% of its time in the search."""


STEPS_BACK_ALL_UP_TO = 8
"""Up to this size, an all-operator candidate that a split of `leveled` makes too easy for
extreme or unreasonable steps back as `STEPS_BACK_FROM` says for + × and × only: of the
candidates thrown away at 6×6 to 8×8 extreme, a quarter to a half were so after a split.
Seeds 0..59 and 100..159, median / mean ms, candidates a puzzle, without and with: 6×6
extreme 58 / 96, 17.2 → 56 / 87, 14.2; 7×7 extreme 84 / 145, 22.3 → 66 / 106, 9.5; 8×8
extreme 115 / 187, 12.6 → 120 / 166, 6.0."""

CLUES_BACK_UP_TO = 6
CLUES_BACK_AT = (4,)
"""Up to this size, at these tiers, an all-operator candidate that a new clue (`_reclue_open_cage`,
when no split is left) makes too easy takes it back and gives another open cage one, as
STEPS_BACK_ALL does at 9×9: at 6×6 extreme most puzzles are made from candidates too hard
as cut (tier 5), whose new clues one after another mostly overshot to tier 3 (seeds 0..39:
5.6 such candidates a puzzle, one in nine made; with, 3.9 and one in six). Instructions run
(callgrind, the same on a loaded machine), seeds 0..39, without and with: 6×6 extreme 13,160
→ 11,674 million, 5×5 extreme 10,691 → 9,630. At unreasonable it never came about (the same
puzzles)."""


WIDEST_CLUES_UP_TO = 5
"""Up to this size, the cages of an all-operator candidate for extreme or unreasonable take,
of the operations the deal leaves even, the one of most fillings (`make_cages`'s `widest`):
at 5×5 extreme most candidates are too easy (56 a puzzle, 1 in 3 unique as cut and 93% of
those too easy). Seeds 0..59 and 100..159, median / mean ms, candidates a puzzle, without
and with: 5×5 extreme 83 / 109, 56 → 56 / 84, 34; 5×5 unreasonable 27 / 40, 19 → 25 / 30,
12. The mix of operations stays (5×5 extreme, seeds 100..129: × 11% → 8%, + 33% → 35%,
− 41% → 41%, ÷ 11% → 13%). 4×4 extreme, where candidates are dropped rather than repaired
(`drops` in `leveled`): 271 → 188 candidates, 72 → 61 ms median. No gain at 6×6 or 7×7 (7×7
extreme: 8.5 → 10.5 candidates)."""


NORMAL_SEARCHED_LATE_FROM = 8
"""From this size up, an all-operator normal candidate goes to `_normal` as cut, with no
uniqueness search first: a puzzle its closure finishes has one solution, so the search is
needed only where no split or new clue is left (a rival there keeps the closure open),
and then `repair` removes the rival it finds. Searching first, 8×8 normal spent 40% of
its time proving candidates unique that `_normal` then finished anyway. Seeds 0..39,
median ms, each way in its own process, two runs alternating: 8×8 normal 14.4-17.1 →
8.1-8.2, 9×9 normal 38.5-45.7 → 16.5-16.7. At 7×7, searched late paid once `_normal`
went on from its board (`closure_since`, `rival_since`: seeds 0..299, least of three runs,
summed CPU ms 4,217 → 3,881), but searched first with MID_SWAPS it costs less again (the
same seeds: early 2,263, late 2,494)."""

NORMAL_UNPROVED_FROM = 6
"""From this size up to NORMAL_SEARCHED_LATE_FROM, an all-operator normal candidate's rivals that
swap two digits along a cycle (MID_SWAPS) are repaired away, but its uniqueness is not searched
past its closure (a budget of 0 nodes, as HARD_NODES): `_normal` keeps only a puzzle its closure
finishes, which has one solution, and searches a rival only where no split or new clue is left,
as from NORMAL_SEARCHED_LATE_FROM. At 6×6, 2.8 of 4.4 searches a puzzle were proofs (seeds
0..59), spent on candidates that `_normal` then finished, or found stuck, or too easy. Least of
three runs a seed, 6×6 seeds 0..199 / 200..399, median and summed CPU ms: 6.04, 1,719 → 5.31,
1,415 / 5.18, 1,493 → 4.66, 1,313; 7×7 seeds 0..199 5.48, 1,561 → 5.14, 1,407; 5×5 3.42, 852
→ 3.86, 1,094, so not there."""

NORMAL_RIVAL_NODES = 20
"""The budget of such a late search: past it the candidate is dropped, since a board with
no split or new clue left that no rival shows on soon is mostly unique and stuck, and the
proof would be spent for nothing (9×9 normal, seeds 40..99: 54 of 176 candidates ended
after one repair). The medians stayed about the same (seeds 0..79, 8×8 and 9×9); the budget
bounds what a stuck candidate costs."""

NORMAL_TWO_CHANGES_FROM = 8
"""While at least this many other cages are open, such a candidate has a second cage split
or given a new clue before its closure is worked out again: each change settles a few
cells, and the closures were half the time. Seeds 40..79, median ms, each way in its own
process, two runs: one change 8×8 15.7-20.3, 9×9 41.0-43.0; two 10.7-11.9, 29.2-32.3
(seeds 0..39: 8×8 9.8-13.9 → 9.0-11.2, 9×9 about the same)."""


HARD_BUDGETED_FROM = 7
HARD_NODES = 0
"""From this size up, an all-operator hard candidate's uniqueness search gives up after
this many nodes, and the candidate goes on to the human-style solve at tier 3 (as
`LOGIC_DECIDES_BELOW` lets a hidden one): its deductions are sound, so a puzzle it finishes
has one solution, and where it gets stuck, an open cage is split as for any candidate.
Rivals are mostly found within a few nodes (9×9, seeds 0..59: 87 found in 948 nodes);
proofs take more (63 in 2,261), and with the row-by-row squares of edition 14 a few took
hundreds (seed 1001: one of 850 nodes, 0.28 s of its 0.31 s). Seeds 0..59 and 100..159,
median / mean / most ms, none 14.7 / 21.1 / 97 and 14.1 / 20.7 / 106; 10 nodes 13.2 /
23.4 / 176 and 13.5 / 20.8 / 93 (101 candidates against 71: rivals left for splits to
remove); 20 nodes 13.4 / 15.9 / 50 and 13.1 / 18.7 / 101; 40 nodes 13.4 / 16.6 / 61 and
13.5 / 18.1 / 69. Generator edition 16. From 7×7 since edition 18: seeds 0..59, median /
mean ms, three runs each way alternating, from 9×9 and from 7×7: 8×8 10.3-11.0 / 12.9-13.6
→ 10.0-10.2 / 11.6-11.8; 7×7 5.9-10.0 / 7.4-11.2 → 5.8-6.4 / 6.6-7.3 (held-out seeds
1000..1019: about the same). Since edition 19, with MID_SWAPS and HARD_NEW_CLUES (below), none:
the closure and the swaps alone, the solve at tier 3 deciding the rest."""


MID_SWAPS = (2, 3)
"""The tiers (normal, hard) at which, above SWAPPED_RIVALS_UP_TO too, an all-operator candidate's
rivals are first looked for among the boards that swap two digits along a cycle (`_swapped_rival`)
before the search (from NORMAL_SEARCHED_LATE_FROM a normal one is searched late, by
`_normal`): at 7×7 to 9×9 hard (seeds 0..39)
they were 64-71% of the rivals the searches found, at a twentieth of a search's cost
(0.1 ms against 2-4 ms), and it found none where the search found the puzzle unique.
Measured by Python lines run (`sys.settrace`, thousands: the same on a loaded machine),
seeds 0..99 and 200..299, median per puzzle and sum, 7×7 / 8×8 / 9×9 hard: edition 18
106, 119, 26,774 / 184, 203, 46,472 / 286, 318, 71,049; swaps and 10 nodes 85, 102, 22,829
/ 148, 151, 38,401 / 230, 234, 57,329. With swaps, 10 nodes against 20: sums 1-6% lower,
medians the same to 15% lower; no search past the closure: medians a little lower again,
sums no lower, longer tails (8×8 p90 398 against 354, seeds 0..99). 7×7 normal: 151, 174,
43,310 → 139, 144, 37,411."""


HARD_NEW_CLUES = 3
"""How many open cages of such a candidate (HARD_BUDGETED_FROM) take a narrower clue at once
when the solve at tier 3 is stuck and no cage is left to split: each new clue begins the
solve again, and most stuck candidates took a run of them, one solve each (8×8 hard, seeds
0..99: 175 new clues for 100 puzzles). Python lines run (as for MID_SWAPS), seeds 0..99 and
200..299, sum and medians, 7×7 / 8×8 / 9×9 hard: one 22,829 (85, 102) / 38,401 (148, 151)
/ 57,329 (230, 234); two 22,519 (86, 102) / 36,406 (140, 149) / 51,448 (222, 213); three
22,511 (86, 103) / 35,410 (140, 148) / 50,213 (219, 218); four 23,230 / 35,247 / 50,944.
With three, HARD_NODES 10 against none (no search past the closure): 22,469 (86, 103) /
35,372 (140, 148) / 50,194 (219, 218) against 21,277 (73, 98) / 31,723 (103, 130) / 49,486
(188, 184), p90 a little higher (8×8: 271, 399 against 326, 393)."""


STUCK_RIVAL_OPEN = 0.25
STUCK_RIVAL_NODES = 20
"""Where the solve at tier 3 of such a candidate (HARD_BUDGETED_FROM) is stuck with at most
this share of its cells open, a rival is searched for from the board it is stuck on (narrow,
so cheap to search: 0.1-0.3 ms at 8×8), on a budget of STUCK_RIVAL_NODES nodes, and a rival
found is repaired away (`repair`) before any split or new clue, at most once per row (a recut
may let a new rival in). Its uniqueness was not searched (HARD_NODES), and the stuck boards
were mostly of puzzles with two solutions, which no split or new clue aimed elsewhere
helps: 8×8 hard, seeds 0..59, every one of 67 stuck boards with 16 or fewer open cells, 44
of 117 with more; the blind splits and new clues then ran out on a third of the candidates.
Searched at any width, the wider boards' searches (1-4 ms, mostly proofs) cost what they
saved; from at most an eighth open, a third of the gain. Per seed least CPU ms of three fresh
processes, summed, 8×8 seeds 0..59 / 60..119 / 120..239: edition 19 527 / 458 / 1,098, a
quarter 434 / 351 / 968; 10 or 40 nodes as 20."""

WIDE_OPEN = 0.75
"""Where that solve is stuck with more than this share of its cells open, the split of an open
cage is followed at once by HARD_NEW_CLUES new clues (as when no split is left) before the
solve begins again: after such a split the solve went on stuck 58 times in 71 (8×8 hard,
seeds 0..119), then ran out of splits and took the new clues all the same. Summed CPU ms as
for STUCK_RIVAL_OPEN, 8×8 seeds 0..119 / 120..239: 790 → 703 / 1,077 → 960 (a half open:
725 / 965); 9×9 seeds 0..79 801 → 721, 7×7 363 → 386 (seeds 100..259 against edition 19:
1,070 → 897)."""


LOOSE_CANDIDATES = 0.64
LOOSE_FROM = 8
"""From this size up, the solve at tier 3 of such a candidate (HARD_BUDGETED_FROM) is not begun
afresh where its closure leaves more than this share of the N³ candidates it could: the
board is changed as one stuck with every cell open (WIDE_OPEN), and the solve begins on
the puzzle changed. Fresh solves of 8×8 hard, seeds 0..199, by the candidates their
closure left, in fifths: 68-274 finished 39 of 104, 275-312 67, 312-337 48, 337-359 33,
359-404 13 (a stuck solve cost 1.6-1.8 ms). Summed CPU ms as for STUCK_RIVAL_OPEN, none
against 0.69, 8×8 seeds 0..159 / 160..319 / 320..479: 1,018 → 921 / 1,125 → 1,090 / 1,085 → 994, medians 4.4
→ 4.0 / 5.7 → 5.5 / 5.1 → 4.8 (0.66: 930 / 1,064 / 998; 0.72: 946); 9×9 seeds 0..99 820 →
801; 7×7 467 → 528, so not there. Then 0.69 against 0.64, 8×8 seeds 0..319 / 160..479 /
480..799: 2,508 → 2,250 / 2,591 → 2,094 / 2,543 → 2,417 (0.60: 2,494 and 2,485; 0.62: 2,258
and 2,331), 9×9 seeds 0..119 1,216 → 1,109. Every candidate whose closure leaves WIDE_OPEN of
its cells open changed so, unsolved, was worse: 748 → 845 at 8×8 (a third of them the solve
finishes as cut). Where the change leaves the puzzle too easy (tiers 1 and 2 finish it), the
candidate is not dropped: the solve looks at the board as it was (8×8 seeds 0..799 summed
6,045 → 5,707 ms, in four runs of 160-320 seeds: −3%, −16%, 0%, −3%)."""


MERGED_FILLINGS = 1500
MERGED_FILLINGS_FROM = 8
"""From this size up, a + × candidate hardened for extreme or unreasonable (`_harden`) merges
no two cages whose merged clue more than MERGED_FILLINGS fillings may meet (`fillings_bound`):
a 6-cell + cage of a middle sum has 12,000 to 19,000, and the solves and searches that filter
such tables took nearly all of the slowest seeds (9×9 unreasonable, seed 317: 1.1 s and 1.5 s
in one merge's proof). Seeds 300..359, CPU s median / second slowest / most, no cap, 3,000
and 1,500: 9×9 unreasonable 0.18 / 2.09 / 2.87, 0.13 / 0.41 / 0.47, 0.10 / 0.41 / 0.75; 9×9
extreme 0.27 / 1.01 / 1.24, 0.19 / 1.36 / 1.44, 0.17 / 0.99 / 1.05; 8×8 extreme 0.36 / 1.37 /
3.00, 0.23 / 1.11 / 1.38, 0.19 / 0.92 / 1.21 (seeds 0..29, 800 against 1,500: no better)."""


UNREASONABLE_DOMINOES_IN_FOUR = 2
UNREASONABLE_BLOCKS_UP_TO = 5
"""Up to this size, of four lone cells, how many become dominoes in an all-operator
unreasonable candidate (not 3): larger cages make a candidate harder from the start, and at
5×5 most were too easy (seeds 1000..1039: 473 candidates for 40 puzzles, 404 of them too
easy as cut or once repaired). Seeds 1000..1099, 2000..2099, 3000..3099 (callgrind, millions
of instructions less Python's start): 5,524, 4,959, 4,912 → 4,792, 4,659, 4,997; with
REPAIRS_REVISITED too, 4,659, 4,233, 4,890, and 12.4, 11.7, 12.0 → 9.3, 8.5, 10.0 candidates
a puzzle (the first seeds 1000..1299). Not at 6×6 (seeds 1000..1011 and 2000..2011: 444, 424
→ 476, 495), nor at 5×5 extreme (seeds 1000..1023: 4,438 → 4,882). Tried and dropped at 5×5
unreasonable: one domino (seeds 1000..1015 and 2000..2015 together: 2,024 → 1,895, with two
1,595); then blocks of at most 5 cells (seeds 1000..1099 and 2000..2099: 5,102, 4,084 against
4,659, 4,233), a candidate dropped when a rival as cut (as `drops`: 24 candidates a puzzle;
5,372, 4,936) or a rival's closure leaves 9 cells or fewer open (4,606, 4,352)."""

REPAIRS_REVISITED = 2
"""Up to UNREASONABLE_BLOCKS_UP_TO, an all-operator unreasonable candidate whose repairs
come back to a board they made before this many times is dropped (`unique`): a recut lets a
new rival in that the next recut takes out by cutting the cages back, and such a candidate
went on to its last repair (seeds 1000..1199 at 5×5: 13 of 135 failed after 25 repairs, 3%
of the rounds); of those that came back twice, none was unreasonable (of those that came
back once, 3 of 72). Seeds as for UNREASONABLE_DOMINOES_IN_FOUR, with it: 4,792, 4,659,
4,997 → 4,700, 4,269, 4,935."""


WHOLE_REPAIRS_UP_TO = 5
WHOLE_REPAIRS_AT = (4,)
"""Up to this size, at these tiers, the repairs of an all-operator candidate (`unique`) leave
no single cell (`repair`'s `whole`): a given digit settles its row and column, and most
repaired 5×5 candidates ended too easy (unreasonable, seeds 1000..1299: of those a repair
gave a single, 486 too easy and 14 made).
Callgrind, millions of instructions less Python's start, 5×5 extreme, seeds 1000..1031 /
1100..1131 / 1200..1231 / 1300..1331: 5,195 / 5,792 / 5,952 / 6,500 → 4,651 / 5,186 / 4,293 /
5,353 (candidates a puzzle,
seeds 1000..1095: 37.1 → 36.0). Tried and dropped: the recut first and no split that keeps
the rival in, 4,929 / 4,939 / 4,885; the same orders at 5×5 unreasonable cost more (seeds
1100..1163: 2,853 → 3,206 as here, 3,073 recut first), as a recut first did at 6×6 extreme
(seeds 1000..1015: 2,550 → 3,020). Below 5×5 a candidate with a rival is dropped (`drops`)."""


SWAPPED_RIVALS_UP_TO = 6
"""Up to this size, an all-operator puzzle is first looked at for a rival that swaps two
digits along one of their cycles (`_swapped_rival`, a tenth of a search's cost), and
searched only when it has none: at 5×5 extreme 57% of the rivals found by the search are
such swaps, and most candidates have a rival as cut and after each repair but the last.
(Every cage of three or more cells is + or ×, so a balanced cycle keeps every clue; the
rival is checked against them all the same.)"""


def _counted(size: int, ops: str) -> bool:
    """Whether a puzzle of `size` and `ops` is judged unique by its every latin square: with
    all four operations too, which are not merged, so that only the search is replaced (4×4
    extreme took some 90 candidates a puzzle and 3 searches a candidate: 1.9 → 1.3 ms a
    candidate, seeds 0..39)."""
    return (ops in COUNTED_OPS or ops == "all") and size <= COUNTED_UP_TO


def _rival(
    puzzle: Puzzle, solution: Grid, ops: str, nodes: int | None, proof: Proof | None = None, swaps: bool = False
) -> tuple[list[int] | None, Grid | None]:
    """`solver.rival` for a generated puzzle (on a budget of `nodes`, with `proof`): the
    `closure` its search began from, or None where no search is run (`_counted`, or a
    swapped rival found first: SWAPPED_RIVALS_UP_TO, or with `swaps`, MID_SWAPS), and another
    solution, or None. Up to SWAPPED_RIVALS_UP_TO, where a full search would follow (no
    `nodes`), swaps of two rows or columns are looked at too: at 5×5 extreme they were 69% of
    the search's rivals, at a fifteenth of its cost."""
    if _counted(puzzle.size, ops):
        return None, other_solution(puzzle, solution)
    if swaps or ops == "all" and puzzle.size <= SWAPPED_RIVALS_UP_TO:
        swapped = _swapped_rival(puzzle, lines=nodes is None and ops == "all" and puzzle.size <= SWAPPED_RIVALS_UP_TO)
        if swapped is not None and _changed_cages_met(puzzle, solution, swapped):
            return None, swapped
    return rival(puzzle, solution, nodes, proof)


def _changed_cages_met(puzzle: Puzzle, solution: Grid, other: Grid) -> bool:
    """Whether `other` meets the clue of every cage of `puzzle` where it differs from `solution`
    (written out: a generator expression per cage cost more than the check)."""
    for cage in puzzle.cages:
        for r, c in cage.cells:
            if solution[r][c] != other[r][c]:
                if not cage.met_by(other):
                    return False
                break
    return True


def _rival_nodes(size: int, ops: str) -> int | None:
    """The node budget of a uniqueness search for a puzzle of `size` and `ops`; None for none."""
    return RIVAL_NODES if ops in HIDDEN_OPS and size >= BUDGETED_FROM else None


def generate(
    size: int,
    seed: int | None = None,
    ops: str = "all",
    level: str | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> Puzzle:
    """A puzzle of `size` with exactly one solution, which it carries.

    `ops` is the operator set ("all", "addmul", "mul" or "hidden"); `seed` picks the
    puzzle (a fresh one is drawn when None) and is kept in `meta` with the options.
    `stop` is asked between leveled candidates; when it says yes, Stopped is raised.
    Every kind that can exist is made (`kinds.IMPOSSIBLE` names those that cannot).
    """
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"size must be {MIN_SIZE} to {MAX_SIZE}, not {size!r}")
    if ops not in OP_SETS:
        raise PuzzleError(f"operator set must be one of {', '.join(OP_SETS)}, not {ops!r}")
    if level is not None and level not in levels_for(size):
        offered = ", ".join(levels_for(size))
        raise PuzzleError(f"a {size}×{size} puzzle cannot be {level!r}; {size}×{size} offers {offered}")
    why = why_impossible(size, ops, level)
    if why is not None:
        offered = ", ".join(offered_levels(size, ops))
        raise PuzzleError(f"{why}; {size}×{size} {ops} offers {offered}")
    if seed is None:
        seed = secrets.randbelow(2**31)
    rng = random.Random(seed)
    if level is not None:
        puzzle = leveled(size, LEVELS.index(level) + 1, rng, ops, stop)
        return _with_meta(puzzle, {"seed": seed, "ops": ops, "difficulty": level})
    return _with_meta(any_level(size, rng, ops, stop), {"seed": seed, "ops": ops})


def _with_meta(puzzle: Puzzle, meta: dict[str, object]) -> Puzzle:
    """A generated puzzle carrying `meta`, not checked again: it was made valid (checking
    it cost 9×9 × only easy a tenth of its time)."""
    assert puzzle.solution is not None  # generated puzzles carry their solution
    return Puzzle.trusted(puzzle.size, puzzle.cages, puzzle.solution, meta)


def any_level(size: int, rng: random.Random, ops: str, stop: Callable[[], bool]) -> Puzzle:
    """A puzzle with exactly one solution, of whatever level comes."""
    while (made := unique(candidate(size, rng, ops), rng, ops)) is None:
        if stop():
            raise Stopped(f"stopped making a {size}×{size} puzzle")
    return made[0]


def candidate(size: int, rng: random.Random, ops: str) -> Puzzle:
    """A random latin square cut into random cages with clues: not yet known to be unique."""
    solution = random_latin_square(size, rng)
    cages = make_cages(random_blocks(size, rng), solution, rng, ops)
    return Puzzle.trusted(size, cages, solution)


def repair(puzzle: Puzzle, other: Grid, rng: random.Random, ops: str, whole: bool = False) -> Puzzle | None:
    """`puzzle` changed so that `other` no longer solves it: its largest cage that `other`
    fills differently split in two, or, where no split leaves `other` out without too
    many single cells, such a cage and a neighbour cut into two other cages. When neither
    can be done, a split that keeps `other` in; None when there is none. When `whole`
    (WHOLE_REPAIRS_AT), no split leaves a single cell (a recut never does).

    Every solution that differs from the puzzle's own differs in some cage of two or
    more cells (single cells pin their digit), so there is a cage to change.
    """
    solution = puzzle.solution
    assert solution is not None
    at, cages = puzzle.cage_indices, puzzle.cages
    differ = {at[r, c] for r, (mine, theirs) in enumerate(zip(solution, other)) if mine != theirs
              for c, digit in enumerate(mine) if digit != theirs[c]}  # the cages, by index
    disputed = [cages[k] for k in sorted(differ) if len(cages[k].cells) > 1]
    return (_split_one(puzzle, disputed, rng, ops, easiest=False, rival=other, singles=not whole)
            or _recut_pair(puzzle, disputed, other, rng, ops)
            or _split_one(puzzle, disputed, rng, ops, easiest=False, singles=not whole))


def _recut_pair(puzzle: Puzzle, cages: list[Cage], other: Grid, rng: random.Random, ops: str) -> Puzzle | None:
    """`puzzle` with one of `cages` and a neighbouring cage cut the other way into two cages
    of two or more cells, one of which `other` does not meet; None when there is no such
    cut. (A rival that swaps two digits of a domino meets every clue the domino could
    take: only moving its wall removes it.)"""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    at, every = puzzle.cage_indices, puzzle.cages
    # The cuts in turn, pair of cages by pair: each pair with its cuts (`_pair_cuts`), and where
    # its cuts end in the count of them all. A repair tries one or two of some forty, so a
    # cut's cells are worked out only when it is tried.
    pairs: list[tuple[Cage, Cage, _Cuts]] = []
    ends: list[int] = []
    count = 0
    for cage in cages:
        cells = cage.cells
        room = MAX_CELLS - len(cells)
        if room < 2:  # no neighbour of two or more cells fits
            continue
        for k in sorted({at[nb] for nb in _border(puzzle.size, cells)}):  # the cages are in order of their cells
            neighbour = every[k]
            if 2 <= len(neighbour.cells) <= room:
                cuts = _pair_cuts(cells, neighbour.cells)
                if cuts[0]:
                    count += len(cuts[0])
                    pairs.append((cage, neighbour, cuts))
                    ends.append(count)
    for pick in in_random_order(list(range(count)), rng):
        k = bisect_right(ends, pick)
        cage, neighbour, (shapes, top, left) = pairs[k]
        part, rest = (tuple([(r + top, c + left) for r, c in shape]) for shape in shapes[pick - ends[k] + len(shapes)])
        others = [c for c in every if c is not cage and c is not neighbour]
        if ops == "mul":  # × alone has one clue for any cells: seen without dealing
            if all(_product(other, cells) == _product(solution, cells) for cells in (part, rest)):
                continue
            halves = [Cage.trusted(cells, "*", _product(solution, cells)) for cells in (part, rest)]
            return Puzzle.trusted(puzzle.size, others + halves, solution)
        halves = make_cages([part, rest], solution, rng, ops, others)
        if not all(half.met_by(other) for half in halves):
            return Puzzle.trusted(puzzle.size, others + halves, solution)
    return None


@lru_cache(maxsize=4096)
def _border(n: int, cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    """The cells of the n×n board beside `cells` and not among them: remembered, as a
    candidate's repairs look around the same cages again."""
    beside = beside_cells(n)
    return tuple({nb: None for cell in cells for nb in beside[cell] if nb not in cells})


def _product(grid: Grid, cells: Iterable[Cell]) -> int:
    """The product of `grid`'s digits in `cells`."""
    return prod(grid[r][c] for r, c in cells)


_Cuts = tuple[tuple[tuple[tuple[Cell, ...], tuple[Cell, ...]], ...], int, int]
"""A pair of cages' cuts (`_pair_cuts`): each as its two parts at the top left corner, and
the row and column they are moved by on the board."""


@lru_cache(maxsize=8192)
def _pair_cuts(first: tuple[Cell, ...], second: tuple[Cell, ...]) -> _Cuts:
    """The ways (`_shape_cuts`) to cut the region of two neighbouring cages into two
    other cages, each as its two parts, at the top left corner, and the row and column
    they are moved by: remembered, as a candidate's repairs meet the same pairs of cages
    again (and pairs of one form share `_placed_cuts`)."""
    top = min(first[0][0], second[0][0])  # cells are in reading order
    left = min(c for _, c in first + second)
    placed = [tuple([(r - top, c - left) for r, c in cells]) for cells in (first, second)]
    return _placed_cuts(*placed), top, left


@lru_cache(maxsize=4096)
def _placed_cuts(
    first: tuple[Cell, ...], second: tuple[Cell, ...]
) -> tuple[tuple[tuple[Cell, ...], tuple[Cell, ...]], ...]:
    """`_pair_cuts` of two neighbouring cages whose region is at the top left corner."""
    return tuple(cut for cut in _shape_cuts(tuple(sorted(first + second))) if cut[0] != first and cut[0] != second)


@lru_cache(maxsize=4096)
def _shape_cuts(shape: tuple[Cell, ...]) -> tuple[tuple[tuple[Cell, ...], tuple[Cell, ...]], ...]:
    """The connected parts of a region at the top left corner (in reading order) that hold
    its first cell and leave a connected rest, each of two or more cells, with that rest:
    regions of one shape share them. Parts are bit masks of the cells' places until kept."""
    links = shape_links(shape)
    every = (1 << len(shape)) - 1

    def cells(mask: int) -> tuple[Cell, ...]:
        return tuple([cell for k, cell in enumerate(shape) if mask >> k & 1])

    cuts = []
    for mask in range(1 << len(shape) - 1):
        part = 1 | mask << 1
        rest = every & ~part
        if part & (part - 1) and rest & (rest - 1) and linked(part, links) and linked(rest, links):
            cuts.append((cells(part), cells(rest)))
    return tuple(cuts)


def unique(
    puzzle: Puzzle, rng: random.Random, ops: str, logic_decides: bool = False,
    first: tuple[list[int], Grid | None] | None = None, proof: Callable[[Puzzle], Proof | None] | None = None,
    budget: int | None = None, swaps: bool = False, revisits: int | None = None, whole: bool = False,
) -> tuple[Puzzle, list[int] | None] | None:
    """`puzzle` repaired until its own solution is its only one, with its `closure` (None
    on a counted board, `_counted`, where it is not worked out);
    None when no repair is left, or after one repair per cell (a recut may let a new
    rival in). The fast solver finds rivals far sooner than the human-style solve finds
    itself stuck. Where the search has a budget (`_rival_nodes`) and spends it: when
    `logic_decides`, the puzzle as it is, for a caller that keeps only what the
    human-style solve finishes (its deductions are sound, so such a puzzle has one
    solution); else the open cage of most fillings takes its narrowest clue (one factor
    pair allowed, as in `_normal`) and the search, on a budget of NARROWED_NODES, runs
    again. (Dropping the candidate instead, 9×9 hidden unreasonable took 0.70 s at the
    median and 1.46 s at most over 10 seeds, 14 to 21 candidates a puzzle.)
    `first` is what `rival` already said of `puzzle`, when the caller asked; `proof`
    gives each search its `Proof`; `budget`, when given, is the search's budget instead;
    `swaps` goes to `_rival`; with `revisits`, None once the repairs come back to a board they
    made before that many times (REPAIRS_REVISITED); `whole` goes to `repair`."""
    nodes = budget if budget is not None else _rival_nodes(puzzle.size, ops)
    if nodes is not None and not logic_decides:
        nodes = NARROWED_NODES
    boards = {frozenset(puzzle.cages)} if revisits else None  # the boards the repairs made
    for _ in range(puzzle.size**2):
        solution = puzzle.solution
        assert solution is not None  # generated puzzles carry their solution
        try:
            settled, other = (first if first is not None
                              else _rival(puzzle, solution, ops, nodes, proof(puzzle) if proof else None, swaps))
            first = None
        except Undecided as spent:
            closed = spent.closure
            assert closed is not None  # `rival` tells it
            if logic_decides:
                return puzzle, closed
            # Too loose to decide: the open cage of most fillings takes its narrowest clue.
            narrower = _reclue_open_cage(puzzle, _open_cages(puzzle, _open_cells(closed)), ops, easiest=True)
            if narrower is None:
                return None
            puzzle = narrower
            continue
        if other is None:
            return puzzle, settled
        repaired = repair(puzzle, other, rng, ops, whole)
        if repaired is None:
            return None
        if boards is not None and revisits:
            board = frozenset(repaired.cages)
            if board in boards:
                revisits -= 1
                if not revisits:
                    return None
            boards.add(board)
        puzzle = repaired
    return None


def leveled(size: int, tier: int, rng: random.Random, ops: str, stop: Callable[[], bool]) -> Puzzle:
    """A puzzle the human-style solver finishes with tier `tier` and not below.

    Two solves run side by side, one capped a tier lower. When the capped one finishes,
    the candidate is too easy and a new one is drawn; when the full one gets stuck, a
    cage with open cells is split (largest first) and both solves resume, since a split
    only adds constraints and every deduction made stays true. Where a split would
    leave too many single cells, a cage gets a clue that fewer fillings meet instead,
    and the solves start over. With HARDENED_OPS, a candidate too easy from the start
    first has cages merged (`_harden`) rather than being thrown away. Tiers 1 and 2 together are the fast solver's
    propagation, which stands in for them: for the capped solve at tier 3, and for
    the whole of tier 2 (`_normal`). A candidate whose uniqueness search spent its budget
    (`_rival_nodes` below LOGIC_DECIDES_BELOW, or `HARD_NODES`) goes on all the same: every deduction is
    sound, so a solve that finishes proves the puzzle has one solution. On such a board a new clue
    that leaves the puzzle too easy is taken back, and another cage tried.
    """
    easiest = tier == 1
    # Merges make the cages of a counted board large: its candidates start as Keen's.
    hardened_counted = tier > 2 and _counted(size, ops)
    dominoes = MUL_DOMINOES_IN_FOUR if ops == "mul" and not easiest and not hardened_counted else DOMINOES_IN_FOUR
    # A 5×5 all-operator unreasonable candidate: larger cages, and a repair loop that comes
    # back on itself is cut short (UNREASONABLE_BLOCKS_UP_TO, REPAIRS_REVISITED).
    unreasonable_small = tier == 5 and ops == "all" and size <= UNREASONABLE_BLOCKS_UP_TO
    if unreasonable_small:
        dominoes = UNREASONABLE_DOMINOES_IN_FOUR
    budgeted = _rival_nodes(size, ops) is not None
    searched_late = tier == 2 and ops == "all" and size >= NORMAL_SEARCHED_LATE_FROM
    # The uniqueness searches of a 7×7 to 9×9 all-operator hard candidate (`HARD_NODES`).
    mid_hard = ops == "all" and size >= HARD_BUDGETED_FROM and tier == 3
    # A 6×6 or 7×7 all-operator normal candidate: swaps and its closure alone (NORMAL_UNPROVED_FROM).
    unproved = tier == 2 and ops == "all" and NORMAL_UNPROVED_FROM <= size < NORMAL_SEARCHED_LATE_FROM
    budget = HARD_NODES if mid_hard else 0 if unproved else None
    loose_from = mid_hard and size >= LOOSE_FROM
    swaps = ops == "all" and tier in MID_SWAPS
    # A 6×6 or 7×7 hidden extreme or unreasonable candidate's search has a budget (`NARROWED_FROM`).
    narrowed = tier >= 4 and ops in HIDDEN_OPS and NARROWED_FROM <= size < BUDGETED_FROM
    if narrowed:
        budget = NARROWED_NODES
    # Past hard, a split that makes a hardened + × or × only board too easy is taken back; so is
    # one of an all-operator board up to STEPS_BACK_ALL_UP_TO, and at 9×9 extreme a split or a
    # new clue that does (STEPS_BACK_ALL).
    all_back = ops == "all" and size >= STEPS_BACK_FROM and tier in STEPS_BACK_ALL
    steps_back = tier > 3 and ((ops in COUNTED_OPS and size >= STEPS_BACK_FROM)
                               or (ops == "all" and size <= STEPS_BACK_ALL_UP_TO)) or all_back
    clues_back = budgeted or all_back or (ops == "all" and tier in CLUES_BACK_AT and size <= CLUES_BACK_UP_TO)

    # On a counted all-operator board from hard up, as in Keen, a new candidate costs less
    # than changes:
    # one with two solutions as cut (told by the squares in microseconds) is dropped, not
    # repaired, and one that tier `tier` cannot finish with no cage left to split, not given new
    # clues (each begins both solves again). 4×4 extreme, seeds 30..59 and 130..159:
    # repaired, 85 candidates a puzzle at 1.5 ms, median 101 ms; dropped, 154 at 0.5 ms, 50 ms;
    # seeds 0..59 and 100..159, without and with no new clues: 63 / 84 → 58 / 69 ms median / mean.
    drops = tier > 2 and ops == "all" and _counted(size, ops)
    # A counted × only normal candidate with a rival as cut is dropped, not repaired: the splits of
    # its repairs left 11 in 12 easy (4×4, seeds 0..59); as cut, 1 in 7 unique ones is normal.
    mul_drops = tier == 2 and ops == "mul" and _counted(size, ops)
    shared_blocks = (drops or mul_drops) and size == COUNTED_UP_TO  # BLOCKS_REUSE
    # Easy + × and × only puzzles: a repaired one is told by tier 1 before any search.
    easy_first = easiest and ops in COUNTED_OPS and not _counted(size, ops)
    # A 6×6 all-operator extreme candidate's search asks the capped solve at once (CAPPED_PROVES_AT).
    capped_proves = tier in CAPPED_PROVES_AT and ops == "all" and size in CAPPED_PROVES_SIZES

    def begin(puzzle: Puzzle) -> tuple[Marks | None, Marks, bool]:
        """The two solves begun on `puzzle` (the capped one only above tier 3: capped at
        tier 2, it is the fast solver's propagation), and that they are fresh: begun on
        the very puzzle they are about."""
        lay = layout(puzzle)
        return (Marks.start(lay) if tier > 3 else None), Marks.start(lay), True

    settled: list[int] | None  # the fast solver's closure, until the human-style solves take over
    for attempt in range(MAX_CANDIDATES):
        if size <= COUNTED_UP_TO:  # one draw of the listed squares: an isotope would cost more
            solution = random_latin_square(size, rng)
        else:
            if attempt % SQUARE_REUSE == 0:
                square = random_latin_square(size, rng)
            solution = random_isotope(square, rng)
        if not shared_blocks or attempt % BLOCKS_REUSE == 0:
            blocks = random_blocks(size, rng, dominoes_in_four=dominoes)
        if drops and rival_of_any_clues(blocks, solution):
            continue  # a rival whatever its clues: dropped as below, before they are dealt
        cages = make_cages(blocks, solution, rng, ops, easiest=easiest,
                           widest=tier > 3 and ops == "all" and size <= WIDEST_CLUES_UP_TO)
        cut = Puzzle.trusted(size, cages, solution)
        first = capped = None
        # A long uniqueness search may ask the two solves meanwhile (`_Solves`).
        solves = (_Solves(tier, after=1, capped_only=True) if capped_proves
                  else _Solves(tier, again=False) if tier in SOLVES_PROVE and ops not in HARDENED_OPS else None)
        proof = solves.proof if solves is not None else None
        made: tuple[Puzzle, list[int] | None] | None
        if easy_first:
            easy = _repaired_easy(cut, rng, ops)
            if easy is None:
                continue
            if easy[1]:
                return easy[0]
            made = easy[0], None  # one solution, but tier 1 does not finish it: split below
        elif tier == 2 and mul_drops:
            if _rival(cut, solution, ops, None)[1] is not None:
                continue
            made = cut, None
        elif tier == 2 and (budgeted or searched_late):
            # `_normal` keeps only a puzzle its closure finishes, which has one solution,
            # and the search would mostly spend its budget (9×9: 65 ms a candidate) for nothing;
            # from NORMAL_SEARCHED_LATE_FROM up, most of it would be spent proving (`_normal`).
            made = cut, None
        else:
            if tier > 2 and ops not in HARDENED_OPS:
                # Too easy as cut (most are), it goes before any repair. The search comes first:
                # a puzzle of two solutions never finishes the capped solve, and at 5×5 extreme
                # 577 of 863 candidates had two (the same puzzles as repairing first, sooner).
                try:
                    settled, other = _rival(cut, solution, ops, budget, proof(cut) if proof else None, swaps)
                except Undecided as spent:
                    settled, other = spent.closure, None
                    undecided = True
                else:
                    undecided = False
                if other is not None and drops:
                    continue
                # A closure leaves a rival its digits: it is worked out only for a cut with none.
                first = settled or ([] if other is not None else _closure(cut)), other
                if other is None and _finished(first[0]):
                    continue
                if first[1] is None:
                    capped = (solves.low if solves is not None and solves.puzzle is cut
                              else _capped(cut, tier, first[0]))
                    if capped is None or isinstance(capped, Marks) and capped.solved:
                        continue
                if undecided and narrowed:
                    first = None  # not known unique: `unique` narrows it
            made = unique(cut, rng, ops, logic_decides=tier < LOGIC_DECIDES_BELOW, first=first, proof=proof,
                          budget=budget, swaps=swaps, revisits=REPAIRS_REVISITED if unreasonable_small else None,
                          whole=ops == "all" and tier in WHOLE_REPAIRS_AT and size <= WHOLE_REPAIRS_UP_TO)
        if made is None:
            continue
        puzzle, settled = made
        if solves is not None and solves.puzzle is puzzle and solves.high is None:
            continue  # tiers below the level solve it
        if tier > 2 and ops in HARDENED_OPS:
            judge = _Solves(tier) if tier in SOLVES_PROVE and not budgeted else None
            hardened = _harden(puzzle, settled, tier, rng, ops, judge)
            if hardened is None:
                continue
            puzzle, settled = hardened
            solves = judge  # the solves that proved the last merge unique, where they did
        # Singles and cage fillings cell by cell (tiers 1 and 2) solve it: too easy above
        # tier 2, and the fast solver tells so far sooner than the human-style solves.
        elif tier > 2 and _finished(settled or _closure(puzzle)):
            continue
        if easiest and not easy_first and _tier_one(puzzle):
            return puzzle
        if tier == 2:
            if size <= COUNTED_UP_TO and _tier_one(puzzle):
                continue  # too easy, and splits would only keep it so: `_normal` would say None
            normal = _normal(puzzle, rng, ops, stop, pins=budgeted,
                             rivals=searched_late or unproved)
            if normal is not None:
                return normal
            continue
        low, high, fresh = begin(puzzle)
        if puzzle is cut and isinstance(capped, Marks):
            low = capped
        # The capped solve a proof went on with (CAPPED_PROVES_AT) is stuck, and the one at the
        # level narrowed to it: it is not looked at again.
        capped_stuck = False
        if solves is not None and solves.puzzle is puzzle and solves.high is not None:
            low, high = solves.low, solves.high  # a finished one is seen there, after `stop` is asked
            capped_stuck = solves.capped_only
        # On a budgeted board, the puzzle before its last new clue, and the cages whose new
        # clue made it too easy (with `steps_back`, before its last split, and the cages whose
        # split did): a step back costs less than a new candidate (9×9 hidden
        # extreme, seeds 100..159: 0.40 s median and 2.5 s most, 20 candidates on the slowest,
        # against 0.19 s and 0.77 s, 2 or 3).
        undo: Puzzle | None = None
        before: tuple[Marks | None, Marks, bool] | None = None
        tried: set[tuple[Cell, ...]] = set()
        closed: list[int] | None = None  # at tier 3, the closure of the puzzle as it is
        repairs = size  # of rivals of stuck boards: a recut may let a new rival in
        unsolved: tuple[Puzzle, list[int]] | None = None  # a loose board changed unsolved, with its closure
        resumed = False  # the solves just stepped back to, stuck where they were: nothing new to find
        while True:
            if stop():
                raise Stopped(f"stopped making a {size}×{size} {LEVELS[tier - 1]} puzzle")
            stuck, resumed = resumed, False
            if stuck:
                pass
            elif tier == 3:
                closed = settled = settled or _closure(puzzle)
                if _finished(settled):
                    if unsolved is None:
                        break
                    # Changed unsolved into too easy: the solve looks at the board as it was.
                    (puzzle, settled), unsolved = unsolved, None
                    low, high, fresh = begin(puzzle)
                    loose_from = False
                    continue
                high.keep(settled)
                settled = None
            elif capped_stuck:
                capped_stuck = False
            elif low is not None:
                propagate(low, tier - 1, quick=True)
                if low.solved:
                    if undo is None:
                        break
                    puzzle, undo = undo, None
                    low, high, fresh = before if before is not None else begin(puzzle)
                    resumed = before is not None
                    continue
                high.narrow(low)
            # A board too loose for the solve to finish is changed unsolved (LOOSE_CANDIDATES).
            loose = loose_from and fresh and closed is not None and _candidates(closed) > LOOSE_CANDIDATES * size**3
            if loose and closed is not None:
                unsolved = puzzle, closed
            else:
                unsolved = None
                if not stuck:
                    propagate(high, tier, quick=True)
            if high.solved:
                # Fresh, the two solves are the puzzle's closures under tier - 1 and tier,
                # which is all the grader would find; after a split, it must look. At tier 3
                # the solve begun again is that look: the closure, not finished (above),
                # stands in for tiers 1 and 2 (9×9 hard: the grader's look cost 2-9 ms in 8
                # of seeds 1000..1019, and where it found the puzzle stuck, the solve begun
                # again did the same work once more).
                found = tier if fresh else tier_needed(puzzle, tier) if tier > 3 else None
                if found == tier:
                    return puzzle
                if found is not None:
                    break
                # Deductions made on a cage before its split can be out of reach after it:
                # go on from what the split puzzle itself gives.
                low, high, fresh = begin(puzzle)
                settled = closed
                continue
            open_cells = (list(_open_cells(closed)) if loose and closed is not None
                          else [i for i, placed in enumerate(high.placed) if not placed])
            if mid_hard and repairs and len(open_cells) <= size * size * STUCK_RIVAL_OPEN:
                # A rival the stuck board leaves is repaired away first (STUCK_RIVAL_NODES).
                other = _stuck_rival(puzzle, high)
                repaired = repair(puzzle, other, rng, ops) if other is not None else None
                if repaired is not None:
                    repairs -= 1
                    if len(repaired.cages) > len(puzzle.cages):  # a split: the solve goes on
                        high, fresh = high.on(layout(repaired)), False
                    else:  # two cages cut anew: what the old ones gave may not hold
                        low, high, fresh = begin(repaired)
                    puzzle = repaired
                    continue
            open_cages = _open_cages(puzzle, open_cells)
            split = _split_one(puzzle, [c for c in open_cages if c.cells not in tried] if steps_back else open_cages,
                               rng, ops, easiest)
            if split is not None:
                if steps_back:
                    # The solves as they were, so that a step back resumes them.
                    undo, before = puzzle, (low.copy() if low is not None else None, high.copy(), fresh)
                    tried.add(_replaced(puzzle, split))
                else:
                    undo, tried = None, set()
                puzzle = split
                if mid_hard and len(open_cells) > size * size * WIDE_OPEN:  # new clues at once (WIDE_OPEN)
                    for _ in range(HARD_NEW_CLUES):
                        kept = set(puzzle.cages)
                        puzzle = _reclue_open_cage(puzzle, [c for c in open_cages if c in kept], ops, easiest) or puzzle
                    if puzzle is not split:
                        low, high, fresh = begin(puzzle)
                        continue
                low = low.on(layout(puzzle)) if low is not None else None
                high = high.on(layout(puzzle))
                fresh = False
                continue
            # A new clue replaces the old one: what was deduced from it may not hold. A
            # budgeted (hidden) board may take a clue of one factor pair at once: see `_normal`.
            if drops:
                break
            split = _reclue_open_cage(puzzle, [c for c in open_cages if c.cells not in tried], ops, easiest or budgeted)
            if split is None:
                break
            if clues_back:
                undo = puzzle
                tried.add(_replaced(puzzle, split))
                if steps_back:  # the solves as they were, stuck: a step back resumes them
                    before = low, high, fresh
            if mid_hard:  # more new clues before the solve begins again (HARD_NEW_CLUES)
                for _ in range(HARD_NEW_CLUES - 1):
                    kept = set(split.cages)
                    split = _reclue_open_cage(split, [c for c in open_cages if c in kept], ops, easiest) or split
            puzzle = split
            low, high, fresh = begin(puzzle)
    raise PuzzleError(f"found no {size}×{size} puzzle of level {LEVELS[tier - 1]} with operations {ops!r}")


def _stuck_rival(puzzle: Puzzle, stuck: Marks) -> Grid | None:
    """A solution of `puzzle` other than its own, searched from `stuck`, the board of a solve
    of it (every deduction sound, so every solution is on it) within STUCK_RIVAL_NODES nodes;
    None when none is found."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    try:
        return rival_since(puzzle, solution, closure_since(puzzle, (stuck.cand[:], {})), STUCK_RIVAL_NODES)
    except Undecided:
        return None


def _repaired_easy(puzzle: Puzzle, rng: random.Random, ops: str) -> tuple[Puzzle, bool] | None:
    """`puzzle` repaired as `unique` repairs it until it has one solution, with whether
    tier 1 finishes it (then it is easy); None when no repair is left, or after one
    repair per cell. A rival is first looked for among the boards that swap two digits
    along one of their cycles (`_swapped_rival`: 83% of the rivals of 9×9 × only cuts, at a
    sixth of a search's cost); with none, tier 1 looks, since a puzzle it finishes has
    one solution (its deductions are sound), and only when it does not finish it does
    the search look for another rival."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    for _ in range(puzzle.size**2):
        other = _swapped_rival(puzzle)
        if other is None:
            if _tier_one(puzzle):
                return puzzle, True
            other = _rival(puzzle, solution, ops, None)[1]
            if other is None:
                return puzzle, False
        repaired = repair(puzzle, other, rng, ops)
        if repaired is None:
            return None
        puzzle = repaired
    return None


def _swapped_rival(puzzle: Puzzle, lines: bool = False) -> Grid | None:
    """A solution of `puzzle` (+ and × cages, and any of two cells) other than its own,
    made by swapping two digits x and y along one of their cycles (from an x to the y of
    its row, to the x of that y's column, and so on): the rows and columns stay latin, and
    a cage with as many x as y on the cycle keeps its sum and product (a domino's
    difference and quotient too). None when no cycle is so balanced in every cage. With
    `lines`, when there is none, two rows' (or columns') digits swapped along one of their
    cycles too (`_swapped_lines`)."""
    n = puzzle.size
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    cage_at = [0] * (n * n)
    held_of = []  # by cage, the digits it holds as a bitmask
    for k, cage in enumerate(puzzle.cages):
        held = 0
        for r, c in cage.cells:
            cage_at[r * n + c] = k
            held |= 1 << solution[r][c]
        held_of.append(held)
    held_at = [held_of[k] for k in cage_at]  # by cell, the digits its cage holds
    at, column_of, row_of, flat = _places(solution)
    # By digit pair x < y (at x * 16 + y), the rows (bitmask) where the x's cage holds a y and
    # the y's cage an x: a balanced cycle holds x and y in every cage it meets, so it keeps to them.
    both_rows = [0] * (16 * n + 16)
    # With `lines`, the same by two columns (at first * n + second: the rows where such an x
    # and y meet) and by two rows (the columns): a swap of two lines keeps to those places.
    across = [0] * (n * n) if lines else []
    down = [0] * (n * n) if lines else []
    first = 0
    for r, row in enumerate(solution):
        at_r, bit = at[r], 1 << r
        for c, x in enumerate(row):
            for y in DIGITS_OF[held_at[first + c] & -(2 << x)]:  # the larger digits x's cage holds
                i = at_r[y]
                if held_at[i] >> x & 1:
                    both_rows[x * 16 + y] |= bit
                    if lines:
                        other = i - first
                        across[c * n + other if c < other else other * n + c] |= bit
                if lines:
                    below = row_of[c][y]
                    if held_at[below * n + c] >> x & 1:
                        down[r * n + below if r < below else below * n + r] |= 1 << c
        first += n
    for x, y in _DIGIT_PAIRS[n]:
        rows = both_rows[x * 16 + y]
        if not rows & (rows - 1):
            continue
        left = rows  # the rows on no cycle looked at yet
        while left:
            start = (left & -left).bit_length() - 1
            seen = 0  # the rows of this cycle
            # By cage k, the x's less the y's of the cycle in it, as the digit at 32**k: all
            # nought only when the sum is (each is at most n ≤ 9 either way).
            balance = 0
            cycle: list[int] = []
            r = start
            while rows >> r & 1:
                seen |= 1 << r
                at_x, at_y = at[r][x], at[r][y]
                balance += (1 << 5 * cage_at[at_x]) - (1 << 5 * cage_at[at_y])
                cycle += (at_x, at_y)
                r = row_of[at_y % n][x]
                if r == start:
                    break
            left &= ~seen
            if rows >> r & 1 and not balance:
                swapped = [list(row) for row in solution]
                for i in cycle:
                    r, c = divmod(i, n)
                    swapped[r][c] = x + y - swapped[r][c]
                return tuple(tuple(row) for row in swapped)
    if lines:
        rows_able = [(k, places) for k, places in enumerate(down) if _THREE_OR_MORE[places]]
        columns_able = [(k, places) for k, places in enumerate(across) if _THREE_OR_MORE[places]]
        if rows_able or columns_able:
            return ((_swapped_lines(flat, n, rows_able, cage_at, column_of, True)
                     if rows_able else None)
                    or _swapped_lines(flat, n, columns_able, cage_at, row_of, False))
    return None


_DIGIT_PAIRS = tuple(tuple((x, y) for x in range(1, n + 1) for y in range(x + 1, n + 1)) for n in range(MAX_SIZE + 1))
"""By board size, the pairs of digits x < y in increasing order."""

_THREE_OR_MORE = tuple(mask.bit_count() > 2 for mask in range(1 << MAX_SIZE))
"""Whether a mask of places in a line holds three or more."""

_WEIGHTS = tuple(1 << 4 * d for d in range(MAX_SIZE + 1))
"""Each digit's weight in a cage's sum of weights, which a change keeps only when it keeps
the cage's digits (a cage holds at most 15 of one digit)."""


def _swapped_lines(
    flat: list[int], n: int, able: list[tuple[int, int]], cage_at: list[int], place_of: list[list[int]], rows: bool
) -> Grid | None:
    """A solution other than `flat` (a solution's digits in reading order) made by swapping
    the digits of two rows (or, unless `rows`, two columns) along one of their cycles of
    three places or more (from a place, to the place where the second line holds the first
    line's digit there, and so on): the lines stay latin, and a cage that keeps its digits
    keeps its clue, whatever its operation. A cycle of two places swaps two digits, as
    `_swapped_rival` does. `able` holds two lines (at first * n + second) and the places
    (three or more) where their two cells' cages each hold the other's digit: a cycle that
    keeps every cage's digits keeps to them. `place_of[line][d]` is where `line` holds d.
    None when no cycle keeps every cage's digits. (At 5×5 all-operator extreme, 69% of the
    rivals the search found after the swaps of two digits.)"""
    weights = _WEIGHTS
    step = 1 if rows else n
    for key, places in able:
        first, second = divmod(key, n)
        firsts, seconds = (first * n, second * n) if rows else (first, second)
        left = places
        while left:
            start = (left & -left).bit_length() - 1
            cycle, p = 0, start
            while places >> p & 1:
                cycle |= 1 << p
                p = place_of[second][flat[firsts + p * step]]
                if p == start:
                    break
            left &= ~cycle
            if p != start or cycle.bit_count() < 3:
                continue
            balance: dict[int, int] = {}
            swapped = flat[:]
            while cycle:
                p = (cycle & -cycle).bit_length() - 1
                cycle ^= 1 << p
                i, j = firsts + p * step, seconds + p * step
                x, y = flat[i], flat[j]
                swapped[i], swapped[j] = y, x
                if cage_at[i] != cage_at[j]:  # a cage holding both keeps its digits
                    balance[cage_at[i]] = balance.get(cage_at[i], 0) + weights[y] - weights[x]
                    balance[cage_at[j]] = balance.get(cage_at[j], 0) + weights[x] - weights[y]
            if not any(balance.values()):
                return tuple(tuple(swapped[r * n:r * n + n]) for r in range(n))
    return None


@lru_cache(maxsize=16)
def _places(solution: Grid) -> tuple[list[list[int]], list[list[int]], list[list[int]], list[int]]:
    """By row, the cell (index in reading order) and the column of each digit, by column,
    the row of each digit, and the digits in reading order: remembered, as a candidate's
    repairs keep its square."""
    n = len(solution)
    at = [[0] * (n + 1) for _ in range(n)]
    column_of = [[0] * (n + 1) for _ in range(n)]
    row_of = [[0] * (n + 1) for _ in range(n)]
    for r, row in enumerate(solution):
        for c, d in enumerate(row):
            at[r][d] = r * n + c
            column_of[r][d] = c
            row_of[c][d] = r
    return at, column_of, row_of, [d for row in solution for d in row]


def _tier_one(puzzle: Puzzle) -> bool | None:
    """Whether tier 1 (singles, and the digits of each cage's fillings as a whole) finishes
    `puzzle`, by the fast solver's propagation, which is that tier (`techniques.settle`);
    None when a cage has too many fillings for it to list."""
    n = puzzle.size
    try:
        narrow = cage_propagation(puzzle, by_cell=False)
    except CageTooLarge:
        return None
    board = [ALL_DIGITS[n]] * (n * n)
    return narrow(board, None) is not None and _finished(board)


def _replaced(puzzle: Puzzle, changed: Puzzle) -> tuple[Cell, ...]:
    """The cells of the first cage of `puzzle` that `changed` (split or given a new clue) no
    longer has."""
    kept = set(changed.cages)
    return next(cage.cells for cage in puzzle.cages if cage not in kept)


SOLVES_PROVE = (5,)
"""The tiers at which a long uniqueness search of an all-operator candidate asks the two
solves of `leveled` (`_Solves`): at unreasonable, the solve at the level (trials) finishes
nearly every candidate that tiers below do not (60 of 60, seeds 100..159), so that the
end of a proof, most of its nodes, is seldom needed."""

CAPPED_PROVES_AT = (4,)
CAPPED_PROVES_SIZES = (6,)
"""The tiers and sizes at which an all-operator candidate's uniqueness search asks, before
its first trial, the solve capped a tier below (`_Solves`, which only begins the one at the
level): a proof that the closure leaves open costs the most of the searches (6×6 extreme,
seeds 1000..1015: 131 of them, 84% of the searches' propagation), and mostly the capped solve
then finishes the puzzle, too easy; where it does not, `leveled` goes on from it. The same
puzzles. Callgrind, millions of instructions less Python's start, seeds 1000..1015: 6×6
extreme 2,492 → 2,414 (asked after 2 nodes 2,438, 3 nodes 2,464; once a candidate 2,425);
not at 5×5 extreme, whose proofs are shorter (2,365 → 2,382; after 2 nodes 2,419)."""

PROOF_AFTER = 20
"""Search nodes after which such a search asks: 158 of 161 rivals found at 9×9 unreasonable
(seeds 100..159) took fewer, 43 of 60 proofs of the puzzles made more."""


class _Solves:
    """The two solves `leveled` begins on a candidate (capped a tier below, and at the
    level), begun by its uniqueness search (`solver.Proof`): when either finishes the
    puzzle, it has one solution, since every deduction is sound, and the search stops.
    The puzzle is then too easy or made; else the search goes on, and the solves are
    where `leveled` begins if the puzzle proves unique (the same puzzles either way).
    At CAPPED_PROVES_AT only the capped one is asked; the one at the level is begun from
    it, and `leveled` goes on with it."""

    def __init__(self, tier: int, again: bool = True, after: int = PROOF_AFTER, capped_only: bool = False) -> None:
        self.tier = tier
        self.after = after
        """The search nodes after which a proof is asked."""
        self.capped_only = capped_only
        """Whether only the capped solve answers (CAPPED_PROVES_AT): the one at the level is
        begun from it, not worked out."""
        self.again = again
        """Whether a puzzle is asked after one the solves left unfinished: not a candidate's
        repairs, whose rivals the search finds past PROOF_AFTER (9×9 unreasonable, seed
        1049: five repairs, each left unfinished after a solve of 1.5 s; 8.3 s → 3.5-4.5 s;
        seeds 0..29 and 100..159 within the noise). The merges of `_harden` are (9×9 + ×
        unreasonable, seeds 0..29: 2.9, 3.1 s against 3.8, 3.4 s without)."""
        self.unfinished = False
        self.puzzle: Puzzle | None = None
        self.low: Marks | None = None
        self.high: Marks | None = None
        """The solve at the level, None when the capped one finished the puzzle."""

    def proof(self, puzzle: Puzzle) -> Proof | None:
        """A search's `Proof` of `puzzle`: that one of the two solves finishes it; None
        when they are not to be asked (`again`)."""
        if self.unfinished and not self.again:
            return None
        return self.after, lambda: self._finish(puzzle)

    def _finish(self, puzzle: Puzzle) -> bool:
        lay = layout(puzzle)
        low = Marks.start(lay)
        propagate(low, self.tier - 1, quick=True)
        high = None
        if not low.solved:
            high = Marks.start(lay)
            high.narrow(low)
            if not self.capped_only:
                propagate(high, self.tier, quick=True)
        self.puzzle, self.low, self.high = puzzle, low, high
        finished = high is None or high.solved
        self.unfinished = self.unfinished or not finished
        return finished


def _capped(puzzle: Puzzle, tier: int, settled: list[int] | None = None) -> Marks | bool | None:
    """None when tiers below `tier` (3 or more) solve `puzzle`, which has one solution and
    which tiers 1 and 2 do not solve; else the solve capped at tier - 1 as far as it went
    (tier > 3), or True (tier 3, where the fast solver's propagation stands in for it).
    `settled`, its `closure` when known, spares the solve working it out again."""
    if tier == 3:
        return True
    low = Marks.start(layout(puzzle))
    if settled is not None:
        low.keep(settled)
    propagate(low, tier - 1, quick=True)
    return None if low.solved else low


def _normal(
    puzzle: Puzzle, rng: random.Random, ops: str, stop: Callable[[], bool], pins: bool = False, rivals: bool = False,
) -> Puzzle | None:
    """`puzzle` with cages split or given narrower clues until singles and cage fillings
    cell by cell (tiers 1 and 2) finish it; None when tier 1 alone does, or nothing is left to change. The fast
    solver's propagation is those two tiers, and far quicker than the human-style solve.
    After a change it goes on from the board before it (`closure_since`: the new cages
    alone looked at, 0.15 ms against 0.38 at 8×8), which may be narrower than the
    puzzle's own closure; only that one, worked out afresh, says the puzzle is finished
    (8×8 normal, seeds 0..39: 116 boards finished so, 72 of them finished afresh).

    With `pins` (hidden operators from BUDGETED_FROM up), when neither helps, an open cage
    may take a × clue of one factor pair, which Keen keeps for the easiest level: with every
    operation hidden and a few single cells allowed, a board cut down to dominoes settles
    nothing (80 of 81 cells open at 9×9), and 98 of 100 candidates ended there (9×9 median
    4.2 s, p99 18 s a puzzle at edition 10). A hidden target gives less away than a shown
    one (15 is 3 × 5, 7 + 8 or 6 + 9), and the grader still refuses a puzzle too easy.
    Here only as the last resort: at once, 9×9 normal was 0.13 s instead of 0.22 s at the
    median but had 8 to 15 cages of one digit pair or set instead of 4 to 9. The splits of
    `leveled` (hard and up) take such clues at once: as a last resort there, 9×9 extreme
    was 1.31 s median and 2.9 s at most over 12 seeds, at once 0.52 s and 1.6 s.

    With `rivals` (a candidate not searched before, NORMAL_SEARCHED_LATE_FROM), when nothing
    else is left, a rival solution the search finds is repaired away (`repair`), at most
    once per row; and while many cages are open, two are changed before the closure is
    worked out again (NORMAL_TWO_CHANGES_FROM)."""
    n = puzzle.size
    repairs = n if rivals else 0  # a recut may let a new rival in
    # Afresh: where a search or `closure` began from the open board, it is remembered there (`_opened`).
    closed = closure_since(puzzle)
    exact = True  # whether `closed` is the puzzle's own closure, not one reached from before a change
    while True:
        if stop():
            raise Stopped(f"stopped making a {n}×{n} normal puzzle")
        open_cages = _open_cages(puzzle, _open_cells(closed[0]))
        if not open_cages:
            if not exact:
                closed, exact = closure_since(puzzle), True
                continue
            easy = _tier_one(puzzle)
            return None if (tier_needed(puzzle, 1) is not None if easy is None else easy) else puzzle
        changed = (_split_one(puzzle, open_cages, rng, ops, easiest=False)
                   or _reclue_open_cage(puzzle, open_cages, ops, easiest=False)
                   or (_reclue_open_cage(puzzle, open_cages, ops, easiest=True) if pins else None))
        if changed is None and repairs > 0:
            repairs -= 1
            changed = _repaired_once(puzzle, rng, ops, closed)
        if changed is None:
            return None
        if rivals:
            kept = set(changed.cages)
            still = [cage for cage in open_cages if cage in kept]
            if len(still) >= NORMAL_TWO_CHANGES_FROM:
                changed = (_split_one(changed, still, rng, ops, easiest=False)
                           or _reclue_open_cage(changed, still, ops, easiest=False) or changed)
        puzzle = changed
        closed, exact = closure_since(puzzle, closed), False


def _repaired_once(puzzle: Puzzle, rng: random.Random, ops: str, closed: Closed) -> Puzzle | None:
    """`puzzle` repaired (`repair`) so that a rival solution found by the search from
    `closed` (its board in `_normal`) no longer solves it; None when it has none, or no
    repair is left."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    try:
        other = rival_since(puzzle, solution, closed, NORMAL_RIVAL_NODES)
    except Undecided:
        return None
    return repair(puzzle, other, rng, ops) if other is not None else None


def _harden(
    puzzle: Puzzle, settled: list[int] | None, tier: int, rng: random.Random, ops: str, solves: _Solves | None = None
) -> tuple[Puzzle, list[int]] | None:
    """`puzzle` (with one solution or, past the search's budget, none found but its own;
    `settled` its `closure`, None when not yet worked out) with two neighbouring
    cages at a time merged into one, each merge kept only when the puzzle stays unique
    and (below tier 5, up to JUDGED_MERGES_UP_TO) tier `tier` still solves it, until
    tiers below `tier` no longer do; with its closure. None when no such merge is left
    before that. A merge only loosens the puzzle, so the uniqueness search is the judge;
    wider cages ask for harder deductions. With × only, a dead end goes back a merge
    (MUL_MERGE_BACKS). `solves`, when given, may prove a merge at the level unique
    (`_kept`)."""
    if _counted(puzzle.size, ops):
        return _harden_counted(puzzle, tier, rng, ops)
    judged = puzzle.size <= JUDGED_MERGES_UP_TO
    settled = settled or _closure(puzzle)
    level = _against(puzzle, settled, tier, judged)
    if level >= 0:
        return puzzle, settled
    rivals: list[Grid] = []
    # Depth first: the merges kept from each puzzle on the way, the last puzzle's first.
    widest = MERGED_FILLINGS if ops == "addmul" and tier > 3 and puzzle.size >= MERGED_FILLINGS_FROM else None
    ways = [_kept(_merged(puzzle, rng, ops, widest), tier, ops, judged, rivals, solves)]
    backs = MUL_MERGE_BACKS if ops == "mul" else 0
    while ways:
        kept = next(ways[-1], None)
        if kept is None:
            ways.pop()
            backs -= 1
            if backs < 0:
                return None
            continue
        puzzle, settled, level = kept
        if level == 0:
            return puzzle, settled
        ways.append(_kept(_merged(puzzle, rng, ops, widest), tier, ops, judged, rivals, solves))
    return None


def _harden_counted(puzzle: Puzzle, tier: int, rng: random.Random, ops: str) -> tuple[Puzzle, list[int]] | None:
    """`_harden` on a counted board, where telling whether a merge stays unique costs far
    less than grading it: merges are kept while the puzzle stays unique, and only then is
    it graded, and, when too hard, the puzzles before it, last first, until one is at
    tier `tier` (None when one is too easy). Most end too easy: one grading each, not one
    per merge (4×4 × only extreme: 3.3)."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    path = [puzzle]
    while (looser := _unique_merge(path[-1], rng, ops)) is not None:
        path.append(looser)
    for puzzle in reversed(path):
        settled = _closure(puzzle)
        level = _against(puzzle, settled, tier, judged=True)
        if level < 0:
            return None
        if level == 0:
            return puzzle, settled
    return None


def _unique_merge(puzzle: Puzzle, rng: random.Random, ops: str) -> Puzzle | None:
    """`puzzle` (on a counted board) with the first pair of `_merges` merged that leaves it
    one solution; None when none does. Told by the squares each clue allows, before any
    puzzle is made."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    n, cages = puzzle.size, puzzle.cages
    allowed = [squares_meeting(n, cage) for cage in cages]
    others = ~(1 << square_index(solution))
    for a, b in _merge_pairs(puzzle, rng):
        rest = [cage for k, cage in enumerate(cages) if k != a and k != b]
        merged = _merged_cage(cages[a], cages[b], solution, rng, ops, rest)
        left = others & squares_meeting(n, merged)
        for k, mask in enumerate(allowed):
            if left and k != a and k != b:
                left &= mask
        if not left:
            return Puzzle.trusted(n, rest + [merged], solution)
    return None


def _kept(
    puzzles: Iterable[Puzzle], tier: int, ops: str, judged: bool, rivals: list[Grid], solves: _Solves | None = None
) -> Iterator[tuple[Puzzle, list[int], int]]:
    """Those of `puzzles` that are unique and not too hard for `tier` (`_against`), each with
    its closure and that verdict, one at a time.

    `rivals` holds the other solutions found so far, and gains those found here: one that
    meets every clue of a puzzle tells it is not unique without a search. A merge turned
    down stays so after later merges (they only loosen the rest of the puzzle), and with ×
    alone its merged clue is the same, so the merges a round turns down are not searched
    again in the next (5×5 × only extreme, seeds 115 and 157: 12,410 searches, 58% of them
    finding a rival, 76% of the time).

    A merge at the level whose search goes on past MERGE_GLANCE nodes asks `solves`, when
    given, whether they finish it (`_Solves`): `leveled` goes on from them, and the proof,
    the most of the search (9×9 + × unreasonable, seed 104: 967 nodes, 0.72 s), is spared."""
    for puzzle in puzzles:
        solution = puzzle.solution
        assert solution is not None  # generated puzzles carry their solution
        if any(all(cage.met_by(other) for cage in puzzle.cages) for other in rivals):
            continue
        nodes = _rival_nodes(puzzle.size, ops)
        try:
            closed, other = _rival(puzzle, solution, ops, MERGE_GLANCE if nodes is None else nodes)
        except Undecided:
            if nodes is not None:  # not known to stay unique: not kept
                continue
            # No rival soon: graded first, since tiers below the level that finish it
            # prove it unique, and too hard it is not kept either way.
            closed = _closure(puzzle)
            level = _against(puzzle, closed, tier, judged)
            if level < 0:
                yield puzzle, closed, level
                continue
            if level > 0:
                continue
            closed, other = _rival(puzzle, solution, ops, None, solves.proof(puzzle) if solves is not None else None)
            if other is None:
                yield puzzle, closed or _closure(puzzle), level
                continue
        if other is not None:
            rivals.append(other)
        else:
            closed = closed or _closure(puzzle)
            if (level := _against(puzzle, closed, tier, judged)) <= 0:
                yield puzzle, closed, level


def _merged(puzzle: Puzzle, rng: random.Random, ops: str, widest: int | None = None) -> Iterator[Puzzle]:
    """`puzzle` with two neighbouring cages merged, each pair of `_merges` in turn; with
    `widest`, only where the merged cage's clue may be met by no more fillings than that
    (`fillings_bound`)."""
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    for first, second in _merges(puzzle, rng):
        rest = [cage for cage in puzzle.cages if cage is not first and cage is not second]
        merged = _merged_cage(first, second, solution, rng, ops, rest)
        if widest is not None and fillings_bound(puzzle.size, merged) > widest:
            continue
        yield Puzzle.trusted(puzzle.size, rest + [merged], solution)


def _merged_cage(first: Cage, second: Cage, solution: Grid, rng: random.Random, ops: str, rest: list[Cage]) -> Cage:
    """One cage over the cells of `first` and `second`, with a clue dealt as `make_cages`
    deals it beside the cages `rest`."""
    cells = tuple(sorted(first.cells + second.cells))
    if ops == "mul":  # × alone has one clue for any cells: no need to deal out the operations
        return Cage.trusted(cells, "*", first.target * second.target)
    return make_cages([cells], solution, rng, ops, rest)[0]


def _against(puzzle: Puzzle, settled: list[int], tier: int, judged: bool) -> int:
    """-1 when tiers below `tier` solve `puzzle` (whose `closure`, tiers 1 and 2, is
    `settled`); when `judged`, 1 when tier `tier` (3 or 4) does not; else 0. An
    unreasonable puzzle that a trial cannot finish is left to the splits in `leveled`:
    it is rare, and looking costs the most."""
    if _finished(settled):
        return -1
    if tier <= 2:
        return 0
    marks = Marks.start(layout(puzzle))
    marks.keep(settled)
    if tier > 3:
        propagate(marks, tier - 1, quick=True)
        if marks.solved:
            return -1
    if tier == 5 or not judged:
        return 0
    propagate(marks, tier, quick=True)
    return 0 if marks.solved else 1


def _merges(puzzle: Puzzle, rng: random.Random) -> Iterator[tuple[Cage, Cage]]:
    """The pairs of neighbouring cages of `puzzle` whose union is no larger than
    MAX_CELLS, in random order (each drawn as it is asked for)."""
    return ((puzzle.cages[a], puzzle.cages[b]) for a, b in _merge_pairs(puzzle, rng))


def _merge_pairs(puzzle: Puzzle, rng: random.Random) -> Iterator[tuple[int, int]]:
    """`_merges` by the cages' places in `puzzle.cages`."""
    cages = puzzle.cages  # in order of their cells, so a pair's numbers sort as its cells do
    at = puzzle.cage_index
    pairs = {(min(a, b), max(a, b)) for a, b in ((at(one), at(other)) for one, other in _adjacent_cells(puzzle.size))}
    ordered = [(a, b) for a, b in sorted(pairs) if a != b and len(cages[a].cells) + len(cages[b].cells) <= MAX_CELLS]
    return in_random_order(ordered, rng)


@lru_cache(maxsize=None)
def _adjacent_cells(n: int) -> tuple[tuple[Cell, Cell], ...]:
    """Each pair of side-by-side cells of the n×n board, once."""
    return tuple(((r, c), nb) for r in range(n) for c in range(n) for nb in ((r, c + 1), (r + 1, c))
                 if nb[0] < n and nb[1] < n)


def _closure(puzzle: Puzzle) -> list[int]:
    """The `closure` of a generated puzzle, which its own solution meets."""
    closed = closure(puzzle)
    assert closed is not None  # the puzzle's own solution meets its clues
    return closed


def _finished(settled: list[int]) -> bool:
    """Whether a `closure` leaves one digit in every cell."""
    return all(not mask & (mask - 1) for mask in settled)


def _candidates(settled: list[int]) -> int:
    """How many candidates, all cells together, a closure leaves."""
    return sum(mask.bit_count() for mask in settled)


def _open_cells(settled: list[int]) -> Iterator[int]:
    """The cells (indices in reading order) a `closure` leaves more than one digit."""
    return (i for i, mask in enumerate(settled) if mask & (mask - 1))


def _open_cages(puzzle: Puzzle, open_cells: Iterable[int]) -> list[Cage]:
    """The cages of `puzzle` that hold any of `open_cells` (indices in reading order),
    in the puzzle's order: a human-style solve's cells with no digit placed, or a
    `closure`'s cells with more than one digit left."""
    at, cells = puzzle.cage_indices, board_cells(puzzle.size)
    return [puzzle.cages[k] for k in sorted({at[cells[i]] for i in open_cells})]


def _split_one(
    puzzle: Puzzle, cages: list[Cage], rng: random.Random, ops: str, easiest: bool, rival: Grid | None = None,
    singles: bool = True,
) -> Puzzle | None:
    """`puzzle` with one of the largest of `cages` split in two, leaving single cells only
    within the share `singles_allowed` permits (none unless `singles`), and with halves
    `rival` does not meet when it is given; None when none of them can be."""
    # A split makes two single cells of a domino, at most one of a larger cage.
    one = singles and singles_allowed(puzzle.size, puzzle.cages, 1)
    two = one and singles_allowed(puzzle.size, puzzle.cages, 2)
    # A domino splits only into single cells; a larger cage into parts of at least two when
    # no single cell is allowed.
    large = 2 if one else 4
    splittable = [cage for cage in cages if (two if len(cage.cells) == 2 else len(cage.cells) >= large)]
    solution = puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    while splittable:
        largest = max([len(cage.cells) for cage in splittable])
        target = rng.choice([cage for cage in splittable if len(cage.cells) == largest])
        smallest = 1 if (two if largest == 2 else one) else 2
        rest = [cage for cage in puzzle.cages if cage is not target]
        # A split is random: a few tries to find one that leaves the rival out.
        for _ in range(1 if rival is None else RIVAL_SPLIT_TRIES):
            halves = split_cage(target, solution, rng, ops, others=rest, easiest=easiest, smallest=smallest)
            if halves and (rival is None or not all(half.met_by(rival) for half in halves)):
                return Puzzle.trusted(puzzle.size, rest + halves, solution)
        splittable.remove(target)
    return None


def _reclue_open_cage(puzzle: Puzzle, open_cages: list[Cage], ops: str, easiest: bool) -> Puzzle | None:
    """`puzzle` with the one of `open_cages` of most fillings given the allowed operation
    that fewest fillings meet; None when none has a narrower clue."""
    n, solution = puzzle.size, puzzle.solution
    assert solution is not None  # generated puzzles carry their solution
    known = _narrowest_clues(solution, ops, easiest)
    best = None
    for cage in open_cages:
        try:
            narrower = known[cage]
        except KeyError:
            narrower = known[cage] = _narrowest_of_form(n, shape_of(cage.cells), cage.op, cage.target,
                                                        tuple([solution[r][c] for r, c in cage.cells]), ops, easiest)
        if narrower is not None and (best is None or narrower[0] > best[0][0]):
            best = (narrower, cage)
    if best is None:
        return None
    (_, shown, target), cage = best
    other = Cage.trusted(cage.cells, shown, target)  # the cage's own cells, a clue its digits make
    return Puzzle.trusted(n, (other if c is cage else c for c in puzzle.cages), solution)


@lru_cache(maxsize=16)
def _narrowest_clues(
    solution: Grid, ops: str, easiest: bool
) -> dict[Cage, tuple[tuple[int, int], str, int] | None]:
    """By cage of a candidate with this `solution`, its `_narrowest_of_form`, filled in as
    asked: a candidate's open cages are looked at again after each new clue."""
    return {}


@lru_cache(maxsize=4096)
def _narrowest_of_form(
    size: int, shape: tuple[Cell, ...], op: str, target: int, digits: tuple[int, ...], ops: str, easiest: bool,
) -> tuple[tuple[int, int], str, int] | None:
    """The clue of a cage of this form (`shape` at the top left corner) holding `digits`, by an
    operation allowed, that fewest fillings meet, as ((the fillings of the cage now, how many
    fewer), operation shown, target); None when none is narrower. Remembered: every
    candidate's cages are new, their forms seldom."""
    now = len(fillings(size, Cage.trusted(shape, op, target)))
    # A hidden set keeps its operations hidden: the new clue is the target alone.
    hidden = ops in HIDDEN_OPS and len(digits) > 1
    best = None
    for real in digits_ops(size, digits, ops, easiest):
        shown = HIDDEN if hidden else real
        made = combine(real, digits)
        assert made is not None  # allowed_ops offers only operations the digits make
        fewer = now - len(fillings(size, Cage.trusted(shape, shown, made)))
        if fewer > 0 and (best is None or fewer > best[0][1]):
            best = ((now, fewer), shown, made)
    return best
