"""The C++ harness around a Verilated block: a CPython extension module, one function call per
block cycle.

Each entry point takes the Python objects themselves (an input dict, or the point's port record)
and does every per-cycle step in C: read and mask every input, set it on the model, evaluate,
write every output back (a fresh dict, or the record's fields), clock edge. So a block cycle is
one foreign call with no packing in Python (docs/architecture.md, "Verilator speed").

Module functions (``h`` is the capsule ``new()`` returns):
``new()``; ``step(h, inputs) -> outputs``; ``step_port(h, record)`` (the record's attributes named
as the ports); ``run(h, n, inputs, keep) -> [outputs…] | None`` (n cycles, inputs held);
``peek(h) -> outputs`` (no edge); ``reset(h)``; ``cycles(h)`` (every clock edge but resets'). A
missing dict input is 0; every input is masked to its width, as the RTL sees it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Port:
    name: str
    width: int

    @property
    def words(self) -> int:
        return (self.width + 31) // 32


@dataclass(frozen=True)
class PortLayout:
    """A block's ports as the Verilated model has them, in the spec's order."""
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    clocked: bool
    has_reset: bool


def _put(k: int, p: Port) -> list[str]:
    """Set input ``p`` from ``v`` (a borrowed or owned int object, or NULL for 0)."""
    if p.width <= 64:
        mask = (1 << p.width) - 1
        return [f"  {{ uint64_t x = v ? PyLong_AsUnsignedLongLongMask(v) : 0;",
                "    if (x == (uint64_t)-1 && PyErr_Occurred()) goto fail;",
                f"    m->{p.name} = x & {mask:#x}ULL; }}"]
    return [f"  if (wide_in(v, &m->{p.name}[0], {p.words}, masks[{k}]) < 0) goto fail;"]


def _get(p: Port) -> str:
    """A new int object for output ``p``."""
    if p.width <= 64:
        return f"PyLong_FromUnsignedLongLong((uint64_t)m->{p.name})"
    return f"wide_out(&m->{p.name}[0], {p.words})"


def harness_source(top: str, module: str, lay: PortLayout) -> str:
    """The extension module ``module`` stepping the Verilated ``top``."""
    cls = f"V{top}"
    n_in, n_out = len(lay.inputs), len(lay.outputs)
    edge = ["  m->clk = 1;", "  m->eval();", "  m->clk = 0;"] if lay.clocked else []
    reset = ["  m->rst = 1;", "  m->eval();", *edge, "  m->rst = 0;", "  m->eval();"] \
        if lay.has_reset else ["  m->eval();"]
    from_dict, from_record = [], []
    for k, p in enumerate(lay.inputs):
        put = ["  " + s for s in _put(k, p)]
        from_dict += [f"  {{ PyObject* v = PyDict_GetItemWithError(d, in_names[{k}]);",
                      "    if (!v && PyErr_Occurred()) goto fail;", *put, "  }"]
        # the attribute is a new reference: dropped on every way out
        from_record += [f"  {{ PyObject* v = PyObject_GetAttr(r, in_names[{k}]);",
                        "    if (!v) goto fail;",
                        *(s.replace("goto fail;", "{ Py_DECREF(v); goto fail; }") for s in put),
                        "    Py_DECREF(v); }"]
    to_dict = []
    for k, p in enumerate(lay.outputs):
        to_dict += [f"  {{ PyObject* v = {_get(p)};",
                    f"    if (!v || PyDict_SetItem(o, out_names[{k}], v) < 0) "
                    "{ Py_XDECREF(v); Py_DECREF(o); return NULL; }",
                    "    Py_DECREF(v); }"]
    to_record = []
    for k, p in enumerate(lay.outputs):
        to_record += [f"  {{ PyObject* v = {_get(p)};",
                      f"    if (!v || PyObject_SetAttr(r, out_names[{k}], v) < 0) "
                      "{ Py_XDECREF(v); return -1; }",
                      "    Py_DECREF(v); }"]
    names = lambda ports: ", ".join(f'"{p.name}"' for p in ports) or "NULL"
    widths_in = ", ".join(str(p.width) for p in lay.inputs) or "0"
    return "\n".join([
        "#define PY_SSIZE_T_CLEAN",
        "#include <Python.h>",
        f'#include "{cls}.h"', '#include "verilated.h"', "#include <cstdint>", "",
        f"static const int N_IN = {n_in}, N_OUT = {n_out};",
        f"static const char* in_text[] = {{{names(lay.inputs)}}};",
        f"static const char* out_text[] = {{{names(lay.outputs)}}};",
        f"static const int in_width[] = {{{widths_in}}};",
        f"static PyObject* in_names[{max(n_in, 1)}];",
        f"static PyObject* out_names[{max(n_out, 1)}];",
        f"static PyObject* masks[{max(n_in, 1)}];     // (1 << width) - 1 of the wide inputs",
        "static PyObject* py32;", "",
        f"struct Handle {{ VerilatedContext* ctx; {cls}* m; unsigned long long cycles; }};", "",
        "static Handle* handle(PyObject* cap) {",
        '  return (Handle*)PyCapsule_GetPointer(cap, "gs_handle");', "}", "",
        "// a wide input: the int masked to its width, 32-bit words, lowest first",
        "static int wide_in(PyObject* v, uint32_t* w, int n, PyObject* mask) {",
        "  if (!v || !PyObject_IsTrue(v)) { for (int i = 0; i < n; ++i) w[i] = 0; return 0; }",
        "  PyObject* x = PyNumber_And(v, mask);", "  if (!x) return -1;",
        "  for (int i = 0; i < n; ++i) {",
        "    w[i] = (uint32_t)PyLong_AsUnsignedLongLongMask(x);",
        "    if (PyErr_Occurred()) { Py_DECREF(x); return -1; }",
        "    if (i + 1 < n) { PyObject* y = PyNumber_Rshift(x, py32); Py_DECREF(x);",
        "                     if (!y) return -1; x = y; }", "  }",
        "  Py_DECREF(x);", "  return 0;", "}", "",
        "static PyObject* wide_out(const uint32_t* w, int n) {",
        "  PyObject* x = PyLong_FromUnsignedLong(w[n - 1]);",
        "  for (int i = n - 2; x && i >= 0; --i) {",
        "    PyObject* s = PyNumber_Lshift(x, py32); Py_DECREF(x); if (!s) return NULL;",
        "    PyObject* low = PyLong_FromUnsignedLong(w[i]);",
        "    if (!low) { Py_DECREF(s); return NULL; }",
        "    x = PyNumber_Or(s, low); Py_DECREF(s); Py_DECREF(low);", "  }",
        "  return x;", "}", "",
        f"static int put_dict({cls}* m, PyObject* d) {{", *from_dict, "  return 0;",
        "fail:", "  return -1;", "}", "",
        f"static int put_record({cls}* m, PyObject* r) {{", *from_record, "  return 0;",
        "fail:", "  return -1;", "}", "",
        f"static PyObject* get_dict({cls}* m) {{",
        "  PyObject* o = PyDict_New();", "  if (!o) return NULL;", *to_dict, "  return o;", "}", "",
        f"static int get_record({cls}* m, PyObject* r) {{", *to_record, "  return 0;", "}", "",
        f"static void edge({cls}* m) {{", *edge, "}", "",
        f"static void do_reset({cls}* m) {{", *reset, "}", "",
        "static void drop(PyObject* cap) {",
        "  Handle* h = handle(cap);", "  if (!h) return;",
        "  h->m->final();", "  delete h->m;", "  delete h->ctx;", "  delete h;", "}", "",
        "static PyObject* gs_new(PyObject*, PyObject*) {",
        "  Handle* h = new Handle;", "  h->ctx = new VerilatedContext;",
        f"  h->m = new {cls}{{h->ctx}};", "  h->cycles = 0;",
        *(["  h->m->clk = 0;"] if lay.clocked else []), "  do_reset(h->m);",
        '  return PyCapsule_New(h, "gs_handle", drop);', "}", "",
        "static PyObject* gs_step(PyObject*, PyObject* const* a, Py_ssize_t n) {",
        '  if (n != 2 || !PyDict_Check(a[1])) { PyErr_SetString(PyExc_TypeError, '
        '"step(h, inputs: dict)"); return NULL; }',
        "  Handle* h = handle(a[0]);", "  if (!h) return NULL;",
        "  if (put_dict(h->m, a[1]) < 0) return NULL;", "  h->m->eval();",
        "  PyObject* o = get_dict(h->m);", "  edge(h->m);", "  h->cycles++;", "  return o;", "}", "",
        "static PyObject* gs_step_port(PyObject*, PyObject* const* a, Py_ssize_t n) {",
        '  if (n != 2) { PyErr_SetString(PyExc_TypeError, "step_port(h, record)"); '
        "return NULL; }",
        "  Handle* h = handle(a[0]);", "  if (!h) return NULL;",
        "  if (put_record(h->m, a[1]) < 0) return NULL;", "  h->m->eval();",
        "  int bad = get_record(h->m, a[1]);", "  edge(h->m);", "  h->cycles++;",
        "  if (bad < 0) return NULL;", "  Py_RETURN_NONE;", "}", "",
        "static PyObject* gs_run(PyObject*, PyObject* const* a, Py_ssize_t n) {",
        '  if (n != 4 || !PyDict_Check(a[2])) { PyErr_SetString(PyExc_TypeError, '
        '"run(h, n, inputs: dict, keep)"); return NULL; }',
        "  Handle* h = handle(a[0]);", "  if (!h) return NULL;",
        "  long cycles = PyLong_AsLong(a[1]);", "  if (cycles == -1 && PyErr_Occurred()) return NULL;",
        "  int keep = PyObject_IsTrue(a[3]);", "  if (keep < 0) return NULL;",
        "  if (put_dict(h->m, a[2]) < 0) return NULL;",
        "  PyObject* outs = keep ? PyList_New(0) : NULL;",
        "  if (keep && !outs) return NULL;",
        "  for (long c = 0; c < cycles; ++c) {", "    h->m->eval();",
        "    if (keep) {", "      PyObject* o = get_dict(h->m);",
        "      if (!o || PyList_Append(outs, o) < 0) { Py_XDECREF(o); Py_DECREF(outs); "
        "return NULL; }",
        "      Py_DECREF(o);", "    }", "    edge(h->m);", "    h->cycles++;", "  }",
        "  if (keep) return outs;", "  Py_RETURN_NONE;", "}", "",
        "static PyObject* gs_peek(PyObject*, PyObject* cap) {",
        "  Handle* h = handle(cap);", "  if (!h) return NULL;",
        "  h->m->eval();", "  return get_dict(h->m);", "}", "",
        "static PyObject* gs_reset(PyObject*, PyObject* cap) {",
        "  Handle* h = handle(cap);", "  if (!h) return NULL;",
        "  do_reset(h->m);", "  Py_RETURN_NONE;", "}", "",
        "static PyObject* gs_cycles(PyObject*, PyObject* cap) {",
        "  Handle* h = handle(cap);", "  if (!h) return NULL;",
        "  return PyLong_FromUnsignedLongLong(h->cycles);", "}", "",
        "static PyMethodDef methods[] = {",
        '  {"new", (PyCFunction)gs_new, METH_NOARGS, "a new model instance, reset"},',
        '  {"step", (PyCFunction)(void(*)(void))gs_step, METH_FASTCALL, "one cycle (dicts)"},',
        '  {"step_port", (PyCFunction)(void(*)(void))gs_step_port, METH_FASTCALL, '
        '"one cycle (a port record)"},',
        '  {"run", (PyCFunction)(void(*)(void))gs_run, METH_FASTCALL, "n cycles, inputs held"},',
        '  {"peek", (PyCFunction)gs_peek, METH_O, "outputs, no edge"},',
        '  {"reset", (PyCFunction)gs_reset, METH_O, "synchronous reset"},',
        '  {"cycles", (PyCFunction)gs_cycles, METH_O, "clock edges so far"},',
        "  {NULL, NULL, 0, NULL}", "};", "",
        f'static struct PyModuleDef def = {{PyModuleDef_HEAD_INIT, "{module}", NULL, -1, '
        "methods};", "",
        f'extern "C" PyMODINIT_FUNC PyInit_{module}(void) {{',
        "  py32 = PyLong_FromLong(32);", "  if (!py32) return NULL;",
        "  for (int k = 0; k < N_IN; ++k) {",
        "    in_names[k] = PyUnicode_InternFromString(in_text[k]);",
        "    PyObject* one = PyLong_FromLong(1);",
        "    PyObject* w = PyLong_FromLong(in_width[k]);",
        "    PyObject* top = PyNumber_Lshift(one, w);",
        "    masks[k] = PyNumber_Subtract(top, one);",
        "    Py_DECREF(one); Py_DECREF(w); Py_DECREF(top);",
        "    if (!in_names[k] || !masks[k]) return NULL;", "  }",
        "  for (int k = 0; k < N_OUT; ++k) {",
        "    out_names[k] = PyUnicode_InternFromString(out_text[k]);",
        "    if (!out_names[k]) return NULL;", "  }",
        "  return PyModule_Create(&def);", "}", ""])
