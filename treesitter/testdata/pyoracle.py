"""Print def/class spans of Python files as JSON, for TestPythonOracle.

Usage: python3 pyoracle.py FILE...  →  [{"file": F, "spans": [[line, start, end], ...]}, ...]
For each def/class: its first decorator line resolves to the decorated
definition, and its def/class line to the definition alone.
"""
import ast
import json
import sys

out = []
for path in sys.argv[1:]:
    try:
        src = open(path, encoding="utf-8").read()
        tree = ast.parse(src)
    except Exception:
        continue
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            end = node.end_lineno
            if node.decorator_list:
                first = min(d.lineno for d in node.decorator_list) 
                spans.append([first, first, end])
            spans.append([node.lineno, node.lineno, end])
    out.append({"file": path, "spans": spans})
json.dump(out, sys.stdout)
