"""NAP template worker: renders Jinja2 and parses TextFSM for the studio service.

One long-lived process of a pool (services/studio/src/clients/template-pool.ts); it answers one
request at a time, as JSON lines over stdio. Started by the pool as

    python3 -I template_worker.py --max-output-bytes N --memory-bytes M

Its first line says whether it can work:
    {"ready": true, "python": "3.11.2", "jinja2": "3.1.2", "textfsm": "1.1.0"}
    {"ready": false, "missing": "textfsm", "error": "No module named 'textfsm'"}   (then exit 3)

Requests, one JSON object a line:
    {"id": 1, "op": "render", "template": "...", "context": {...}, "profile": "templateBuilder" | "device"}
    {"id": 2, "op": "parse", "template": "<TextFSM template>", "text": "<device output>"}
    {"id": 3, "op": "echo", "value": <any>}
Replies:
    {"id": 1, "ok": true, "value": <rendered text | list of records | the echoed value>}
    {"id": 1, "ok": false, "error": {"kind": ..., "message": ..., "line"?: n, "missing"?: [names]}}
Error kinds: syntax, undefined, render, security, output_limit, memory, textfsm_template,
textfsm_parse, bad_request.

Time is not limited here: the pool kills a worker whose request runs too long and starts another.
"""

import argparse
import collections
import io
import json
import resource
import signal
import sys

try:
    import jinja2
    import textfsm
    from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError
    from jinja2.runtime import StrictUndefined, Undefined
    from jinja2.sandbox import SandboxedEnvironment
    from jinja2.utils import missing
except ImportError as err:  # the pool turns this into "install python3-jinja2 python3-textfsm"
    sys.stdout.write(json.dumps({"ready": False, "missing": err.name, "error": str(err)}) + "\n")
    sys.stdout.flush()
    sys.exit(3)


class OutputLimit(Exception):
    """The rendered text (or the parsed records) would exceed the output cap."""


# Names of top-level variables a device template used without a value, in order, for the 422.
MISSING_NAMES = []


def _fail_and_record(self, *args, **kwargs):
    if self._undefined_obj is missing and self._undefined_hint is None and self._undefined_name is not None:
        if self._undefined_name not in MISSING_NAMES:
            MISSING_NAMES.append(self._undefined_name)
    raise self._undefined_exception(self._undefined_message)


class DeviceUndefined(StrictUndefined):
    """StrictUndefined that records the missing name and still allows tests in conditions.

    Printing, iterating, attribute access, calls and arithmetic on a variable the context lacks fail
    (the device template route answers 422 naming it); `{% if x %}` and comparisons treat it as
    false, and `x is defined` and `x | default(...)` work as everywhere.
    """

    __slots__ = ()
    _fail_with_undefined_error = _fail_and_record

    def __bool__(self):
        return False

    def __eq__(self, other):
        return type(self) is type(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(type(self))


for _name in (
    "__iter__ __str__ __len__ __contains__ __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __div__ __rdiv__ "
    "__truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pos__ __neg__ __call__ __getitem__ "
    "__lt__ __le__ __gt__ __ge__ __int__ __float__ __complex__ __pow__ __rpow__"
).split():
    setattr(DeviceUndefined, _name, _fail_and_record)


class NapSandbox(SandboxedEnvironment):
    """The sandbox, stricter in two ways: an unsafe attribute fails at once (instead of printing an
    empty string under the lenient Undefined), and `*` refuses to build a string or list longer than
    the output cap before it is allocated."""

    intercepted_binops = frozenset(["*"])

    def __init__(self, max_output, **options):
        super().__init__(**options)
        self.max_output = max_output

    def unsafe_undefined(self, obj, attribute):
        raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe")

    def call_binop(self, context, operator, left, right):
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > self.max_output:
                    raise OutputLimit()
        return super().call_binop(context, operator, left, right)


def environments(max_output):
    return {
        # Python Jinja2's defaults, as the platform being replaced rendered TemplateBuilder templates:
        # no autoescape, lenient Undefined, blocks keep their newlines, one trailing newline dropped.
        "templateBuilder": NapSandbox(max_output),
        # Device configuration text: block tags leave no blank lines or indentation behind, the final
        # newline is kept, and a variable without a value is an error rather than a blank.
        "device": NapSandbox(max_output, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, undefined=DeviceUndefined),
    }


CACHE_ENTRIES = 128
CACHE_SOURCE_CHARS = 65536


class TemplateCache:
    """Compiled templates by (profile, source), least recently used out first."""

    def __init__(self, envs):
        self.envs = envs
        self.entries = collections.OrderedDict()

    def get(self, profile, source):
        key = (profile, source)
        tmpl = self.entries.get(key)
        if tmpl is not None:
            self.entries.move_to_end(key)
            return tmpl
        tmpl = self.envs[profile].from_string(source)
        if len(source) <= CACHE_SOURCE_CHARS:
            self.entries[key] = tmpl
            if len(self.entries) > CACHE_ENTRIES:
                self.entries.popitem(last=False)
        return tmpl


def utf8_length(text):
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def template_line(err):
    """Line of the template where a runtime error happened (Jinja2 rewrites tracebacks to it)."""
    line = None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def failure(kind, message, **extra):
    error = {"kind": kind, "message": message}
    error.update({k: v for k, v in extra.items() if v is not None})
    return {"ok": False, "error": error}


def render(req, cache, max_output):
    profile = req.get("profile")
    source = req.get("template")
    context = req.get("context")
    if profile not in cache.envs or not isinstance(source, str) or not isinstance(context, dict):
        return failure("bad_request", "render needs a template (string), a context (object) and a known profile")
    try:
        tmpl = cache.get(profile, source)
    except TemplateSyntaxError as err:
        return failure("syntax", err.message or str(err), line=err.lineno)
    del MISSING_NAMES[:]
    parts = []
    size = 0
    try:
        for chunk in tmpl.generate(context):
            size += utf8_length(chunk)
            if size > max_output:
                raise OutputLimit()
            parts.append(chunk)
    except OutputLimit:
        return failure("output_limit", f"the output exceeds {max_output} bytes")
    except SecurityError as err:
        return failure("security", str(err), line=template_line(err))
    except UndefinedError as err:
        return failure("undefined", str(err), line=template_line(err), missing=list(MISSING_NAMES) or None)
    except TemplateSyntaxError as err:  # an {% include %} or {% import %} of text that does not compile
        return failure("syntax", err.message or str(err), line=err.lineno)
    except MemoryError:
        return failure("memory", "the render needed more memory than a template worker may use")
    except RecursionError as err:
        return failure("render", f"recursion too deep: {err}", line=template_line(err))
    except Exception as err:  # noqa: BLE001 - any error of the template's own logic is the caller's answer
        return failure("render", f"{type(err).__name__}: {err}", line=template_line(err))
    return {"ok": True, "value": "".join(parts)}


def parse(req, max_output):
    source = req.get("template")
    text = req.get("text")
    if not isinstance(source, str) or not isinstance(text, str):
        return failure("bad_request", "parse needs a template (string) and a text (string)")
    try:
        fsm = textfsm.TextFSM(io.StringIO(source))
    except textfsm.TextFSMTemplateError as err:
        return failure("textfsm_template", str(err))
    except Exception as err:  # noqa: BLE001 - a regex that does not compile, and the like
        return failure("textfsm_template", f"{type(err).__name__}: {err}")
    try:
        records = fsm.ParseTextToDicts(text)
    except textfsm.TextFSMError as err:
        return failure("textfsm_parse", str(err))
    except MemoryError:
        return failure("memory", "the parse needed more memory than a template worker may use")
    except Exception as err:  # noqa: BLE001
        return failure("textfsm_parse", f"{type(err).__name__}: {err}")
    if utf8_length(json.dumps(records, ensure_ascii=False)) > max_output:
        return failure("output_limit", f"the records exceed {max_output} bytes")
    return {"ok": True, "value": records}


def encode(reply):
    try:
        return (json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: JSON escapes carry them unchanged
        return (json.dumps(reply, separators=(",", ":")) + "\n").encode("ascii")


def handle(line, cache, max_output):
    try:
        req = json.loads(line)
    except ValueError as err:
        return {"id": None, **failure("bad_request", f"not JSON: {err}")}
    if not isinstance(req, dict):
        return {"id": None, **failure("bad_request", "a request is a JSON object")}
    op = req.get("op")
    if op == "render":
        reply = render(req, cache, max_output)
    elif op == "parse":
        reply = parse(req, max_output)
    elif op == "echo":
        reply = {"ok": True, "value": req.get("value")}
    else:
        reply = failure("bad_request", f"unknown op {op!r}")
    reply["id"] = req.get("id")
    return reply


def die_with_parent():
    """Asks Linux to kill this worker when the service dies, even in the middle of a runaway render
    (a worker that reads its stdin notices the end anyway; one stuck in a loop would not)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-output-bytes", type=int, required=True)
    parser.add_argument("--memory-bytes", type=int, required=True)
    args = parser.parse_args()
    # The pool stops workers by closing stdin (or killing them); a Ctrl-C meant for the service
    # must not print a traceback from every worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    resource.setrlimit(resource.RLIMIT_AS, (args.memory_bytes, args.memory_bytes))
    cache = TemplateCache(environments(args.max_output_bytes))
    out = sys.stdout.buffer
    ready = {"ready": True, "python": sys.version.split()[0], "jinja2": jinja2.__version__, "textfsm": getattr(textfsm, "__version__", "unknown")}
    out.write(encode(ready))
    out.flush()
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            reply = handle(line, cache, args.max_output_bytes)
        except MemoryError:
            reply = {"id": None, **failure("memory", "the request needed more memory than a template worker may use")}
        out.write(encode(reply))
        out.flush()


if __name__ == "__main__":
    main()
