"""Writes the example agent runs `tokenpilot audit` is shown and tested on (deterministic).

    python tokenpilot/examples/audit/make_examples.py      # rewrites the files beside it

- ``agent_requests.jsonl``: the request bodies a coding agent sent, one per line, as a
  framework logs them. Its system prompt carries the current time on line 3, so the prompt
  changes at the top on every turn; it reads source files (large tool results) and attaches a
  design document on the first turn.
- ``agent_transcript.json``: one run's messages, as a framework saves a conversation: a
  support agent with a stable system prompt, tool calls and their results.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOLS = [
    {"type": "function", "function": {
        "name": "read_file", "description": "Read a file of the repository.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                       "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "run_tests", "description": "Run the test suite, or one test file.",
        "parameters": {"type": "object", "properties": {"target": {"type": "string"}}}}},
    {"type": "function", "function": {
        "name": "edit_file", "description": "Replace a unique string in a file.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["path", "old", "new"]}}},
]
RULES = "\n".join(f"- Rule {i}: keep changes small, run the tests, explain what you changed "
                  f"and why (rule set {i % 7})." for i in range(1, 41))


def system(turn: int) -> str:
    return ("You are a coding agent working in the user's repository.\n"
            "Work step by step and use the tools.\n"
            f"Current time: 2026-12-01T09:{turn:02d}:00Z\n" + RULES)


def source_file(name: str, n: int) -> str:
    lines = [f'"""{name}: part of the parser."""', "", "from __future__ import annotations", ""]
    for i in range(n):
        lines += [f"def rule_{i}(tokens: list[str], pos: int) -> tuple[int, object]:",
                  f"    \"\"\"Parse rule {i} at ``pos``; returns the new position and node.\"\"\"",
                  f"    if pos >= len(tokens) or tokens[pos] != 'r{i}':",
                  "        raise SyntaxError(f'expected r" + str(i) + " at {pos}')",
                  f"    return pos + 1, ('rule_{i}', tokens[pos])", ""]
    return "\n".join(lines)


DESIGN = "<document name='DESIGN.md'>\n" + "\n".join(
    f"Section {i}. The parser reads tokens left to right; rule {i} applies when the lookahead "
    f"is r{i}. Errors carry the position. Performance target: linear time in the input."
    for i in range(1, 61)) + "\n</document>"


def agent_requests() -> list[dict]:
    messages = [{"role": "user", "content": "The test test_parser.py::test_rule_7 fails. "
                 "Find the cause and fix it. The design is attached.\n\n" + DESIGN}]
    steps = [("read_file", {"path": "parser/rules.py"}, source_file("rules.py", 40)),
             ("run_tests", {"target": "tests/test_parser.py"},
              "F" + "." * 40 + "\nFAILED tests/test_parser.py::test_rule_7 - SyntaxError: "
              "expected r7 at 3\n1 failed, 40 passed in 0.41s"),
             ("read_file", {"path": "parser/lexer.py"}, source_file("lexer.py", 25)),
             ("edit_file", {"path": "parser/rules.py", "old": "pos >= len(tokens)",
                            "new": "pos > len(tokens)"}, "ok: 1 replacement"),
             ("run_tests", {"target": "tests/test_parser.py"}, "." * 41 + "\n41 passed in "
              "0.39s")]
    out = []
    for turn, (tool, args, result) in enumerate(steps):
        out.append({"model": "llama-3.1-8b", "messages":
                    [{"role": "system", "content": system(turn)}, *messages],
                    "tools": TOOLS, "max_tokens": 512})
        call = {"id": f"call_{turn}", "type": "function",
                "function": {"name": tool, "arguments": json.dumps(args)}}
        messages += [{"role": "assistant", "content": f"Step {turn + 1}: I will {tool}.",
                      "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": f"call_{turn}", "content": result}]
    out.append({"model": "llama-3.1-8b", "messages":
                [{"role": "system", "content": system(len(steps))}, *messages],
                "tools": TOOLS, "max_tokens": 512})
    return out


def agent_transcript() -> dict:
    sys_prompt = ("You are the support agent of an online shop. Be brief and polite.\n"
                  "Look orders up before answering questions about them.\n" + RULES)
    orders = "\n".join(f"order {1000 + i}: item {i}, status shipped, carrier DHL, "
                       f"tracking DE{i:09d}, address line {i}" for i in range(120))
    msgs = [{"role": "system", "content": sys_prompt},
            {"role": "user", "content": "Where is my order 1042?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {
                    "name": "list_orders", "arguments": json.dumps({"customer": "c-77"})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": orders},
            {"role": "assistant", "content": "Order 1042 has shipped with DHL; its tracking "
             "number is DE000000042."},
            {"role": "user", "content": "Thanks. And can I change the address of 1043?"},
            {"role": "assistant", "content": "Order 1043 has already shipped, so its address "
             "cannot be changed any more; I can open a redirect request with DHL."},
            {"role": "user", "content": "Yes please."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c2", "type": "function", "function": {
                    "name": "redirect", "arguments": json.dumps({"order": 1043})}}]},
            {"role": "tool", "tool_call_id": "c2", "content": "redirect request R-5521 opened"},
            {"role": "assistant", "content": "Done: redirect request R-5521 is open. DHL will "
             "confirm by e-mail."}]
    tools = [{"type": "function", "function": {"name": n, "description": d, "parameters": {
        "type": "object", "properties": {"customer": {"type": "string"},
                                         "order": {"type": "integer"}}}}}
             for n, d in (("list_orders", "List a customer's orders."),
                          ("redirect", "Open a redirect request for a shipped order."))]
    return {"model": "llama-3.1-8b", "tools": tools, "messages": msgs}


def main() -> None:
    (HERE / "agent_requests.jsonl").write_text(
        "".join(json.dumps(b) + "\n" for b in agent_requests()))
    (HERE / "agent_transcript.json").write_text(json.dumps(agent_transcript(), indent=1) + "\n")


if __name__ == "__main__":
    main()
