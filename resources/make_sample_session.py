"""Writes ``resources/sample-session.jsonl``: the session a newcomer sees on first start.

It shows everything at once (DESIGN.md §7, issue 5): branches, two compactions, a branch summary and
labels, written with Arbor's own entry builders so the file is exactly what pi would accept. Ids and
times are fixed so the file is reproducible: ``python resources/make_sample_session.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.llm.offline import OFFLINE_MODEL
from desktop_app.session.entries import (
    iso_from_ms,
    make_branch_summary_entry,
    make_compaction_entry,
    make_header,
    make_label_entry,
    make_message_entry,
    make_model_change_entry,
    make_session_info_entry,
    make_thinking_level_entry,
    serialize_line,
)

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MODEL = {"api": OFFLINE_MODEL.api, "provider": OFFLINE_MODEL.provider, "model": OFFLINE_MODEL.id}


class Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.clock = START_MS
        self.counter = 0
        self.leaf: str | None = None

    def _next(self) -> tuple[str, str]:
        self.counter += 1
        self.clock += 37_000
        return f"s{self.counter:07x}", iso_from_ms(self.clock)

    def add(self, build: Any, *args: Any) -> str:
        entry_id, ts = self._next()
        entry = build(entry_id, self.leaf, ts, *args)
        self.lines.append(serialize_line(entry))
        self.leaf = entry_id
        return entry_id

    def user(self, text: str) -> str:
        return self.add(make_message_entry, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": self.clock})

    def assistant(self, text: str, tool: dict[str, Any] | None = None, tokens: int = 1200) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool:
            content.append({"type": "toolCall", **tool})
        usage = {
            "input": tokens, "output": 180, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens + 180,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        message = {
            "role": "assistant", "content": content, **MODEL, "usage": usage,
            "stopReason": "toolUse" if tool else "stop", "timestamp": self.clock,
        }
        return self.add(make_message_entry, message)

    def tool_result(self, call_id: str, name: str, text: str) -> str:
        message = {
            "role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": self.clock,
        }
        return self.add(make_message_entry, message)


SUMMARY_1 = """(Offline summary — generated without a language model.)

## Goal
Plan a three-day trip to Lisbon in May on a mid-range budget.

## Constraints & Preferences
- Prefers walking and public transport; no car.
- Vegetarian food.

## Progress
### Done
- [x] Picked dates (May 14–17) and the Alfama neighbourhood for the stay.

### In Progress
- [ ] Day-by-day itinerary.

### Blocked
- (none)

## Key Decisions
- **Base**: Alfama, close to the tram 28 line.

## Next Steps
1. Draft the itinerary for day one.

## Critical Context
- Budget: about 120 EUR per day excluding lodging."""

SUMMARY_2 = """(Offline summary — generated without a language model.)

## Goal
Plan a three-day trip to Lisbon in May on a mid-range budget.

## Constraints & Preferences
- Walking and public transport only; vegetarian food.

## Progress
### Done
- [x] Dates, base (Alfama) and days one and two planned.
- [x] Packing list written to notes/packing.md.

### In Progress
- [ ] Day three: Sintra or Cascais.

### Blocked
- (none)

## Key Decisions
- **Day two**: Belém in the morning, LX Factory in the afternoon.

## Next Steps
1. Decide on day three.

## Critical Context
- Trains to Sintra leave from Rossio every 20 minutes.

<read-files>
notes/lisbon.md
</read-files>

<modified-files>
notes/packing.md
</modified-files>"""

BRANCH_SUMMARY = """The user explored a different conversation branch before returning here.
Summary of that exploration:

(Offline summary — generated without a language model.)

## Goal
Compare Cascais with Sintra for day three.

## Progress
### Done
- [x] Looked at Cascais: beaches, 40 minutes by train from Cais do Sodré.

## Key Decisions
- **Cascais**: nice, but the user prefers palaces and hiking, so back to Sintra."""


def build() -> str:
    w = Writer()
    lines = w.lines
    header = make_header("01a2b3c4-0000-7000-8000-00000000a4b0", "/home/you/trips", iso_from_ms(START_MS))
    lines.append(serialize_line(header))
    w.add(make_model_change_entry, "arbor", "offline")
    w.add(make_thinking_level_entry, "medium")
    first = w.user("I want to plan three days in Lisbon in May. Mid-range budget, I don't want to rent a car.")
    w.assistant("Happy to help. Which dates, and do you have dietary preferences I should plan around?")
    w.user("May 14 to 17. I'm vegetarian.")
    w.assistant("Great. I suggest staying in Alfama: central, walkable and on tram 28. Shall I read your notes file first?",
                {"id": "call_1", "name": "read", "arguments": {"path": "notes/lisbon.md"}})
    w.tool_result("call_1", "read", "# Lisbon\n- budget ~120 EUR/day\n- must see: Belém, Sintra\n")
    w.assistant("Your notes say 120 EUR per day, Belém and Sintra. I'll build the plan around them.")
    w.add(make_label_entry, first, "trip start")
    w.user("Please start with day one.")
    kept_1 = w.user("Actually, list what day one looks like hour by hour.")
    w.assistant("Day one: 9:00 Castelo de São Jorge, 12:00 lunch at a vegetarian tasca, 15:00 Alfama walk, 19:00 fado.")
    w.add(make_compaction_entry, SUMMARY_1, kept_1, 48_213, {"readFiles": ["notes/lisbon.md"], "modifiedFiles": []}, False)
    w.user("Now day two.")
    w.assistant("Day two: Belém in the morning (tower, monastery, pastéis), LX Factory in the afternoon.")
    w.user("Write a packing list to notes/packing.md.")
    w.assistant("Writing it now.", {"id": "call_2", "name": "write", "arguments": {"path": "notes/packing.md", "content": "- shoes\n- rain jacket\n"}})
    w.tool_result("call_2", "write", "Wrote 2 lines to notes/packing.md")
    fork_point = w.assistant("Done: comfortable shoes and a light rain jacket are on the list.")
    w.add(make_label_entry, fork_point, "packing done")
    # a side branch: Cascais, later summarized when the user came back
    w.user("For day three, what about Cascais?")
    abandoned = w.assistant("Cascais has beaches and is 40 minutes by train from Cais do Sodré.")
    w.leaf = fork_point
    w.add(make_branch_summary_entry, fork_point, BRANCH_SUMMARY,
          {"readFiles": [], "modifiedFiles": [], "abandonedLeafId": abandoned}, False)
    kept_2 = w.user("Let's do Sintra for day three instead.")
    w.assistant("Sintra it is: Pena Palace early, then the Moorish Castle hike. Trains leave Rossio every 20 minutes.")
    w.add(make_compaction_entry, SUMMARY_2, kept_2, 61_877,
          {"readFiles": ["notes/lisbon.md"], "modifiedFiles": ["notes/packing.md"]}, False)
    w.user("Summarize the whole plan in five bullet points.")
    w.assistant("- Stay in Alfama\n- Day 1: castle, Alfama, fado\n- Day 2: Belém + LX Factory\n- Day 3: Sintra\n- ~120 EUR/day")
    w.add(make_session_info_entry, "Lisbon trip (sample)")
    return "".join(lines)


if __name__ == "__main__":
    target = Path(__file__).with_name("sample-session.jsonl")
    target.write_text(build(), encoding="utf-8")
    print(f"wrote {target}")
