"""Prints the stack-effect table of the interpreter running it, as
preload/python/layout/stack_effects.c holds it for 3.14 and 3.15:

    python3.14 preload/python/layout/stack_effects.py

Everything comes from the interpreter's own modules: each opcode's family
(_opcode_metadata._specializations), its stack effect for every oparg
(dis.stack_effect, with and without the jump: they agree from 3.13), whether
it jumps (dis.hasjump) and backwards (dis._is_backward_jump).  An effect
must be one of the forms stack_effects.c decodes, for opargs 0 to 2047,
or this fails rather than print a table that is wrong.  Which opcodes end
a block (no fall-through) is the compiler's own rule (a return, a raise,
an unconditional jump), named below.
"""
import dis
import opcode
import sys

import _opcode_metadata as om

# The forms of effect stack_effects.c decodes: name, function of oparg.
FORMS = [
    ("SE_CONST", lambda c, n: c),
    ("SE_MINUS_N", lambda c, n: c - n),
    ("SE_MINUS_2N", lambda c, n: c - 2 * n),
    ("SE_PLUS_N", lambda c, n: c + n),
    ("SE_PLUS_BIT0", lambda c, n: c + (n & 1)),
    ("SE_MINUS_BIT0", lambda c, n: c - (n & 1)),
    ("SE_UNPACK_EX", lambda c, n: c + (n & 0xFF) + (n >> 8)),
]
STOPS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
         "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "INTERPRETER_EXIT"}
# END_ASYNC_FOR names the loop it ends for sys.monitoring's branch events;
# the interpreter falls through it or raises, never jumps.
NOT_JUMPS = {"END_ASYNC_FOR"}
# Left out: their real instruction is elsewhere (sys.monitoring's copy, an
# executor), so a code object holding one is not analysed.
UNKNOWN_PREFIXES = ("INSTRUMENTED_", "ENTER_EXECUTOR", "TRACE_RECORD")


def effect(op, n):
    arg = n if op >= opcode.HAVE_ARGUMENT else None
    a = dis.stack_effect(op, arg, jump=False)
    b = dis.stack_effect(op, arg, jump=True)
    if a != b:
        sys.exit("%s: jump and fall-through effects differ" % opcode.opname[op])
    return a


def form_of(op):
    opargs = range(0, 2048) if op >= opcode.HAVE_ARGUMENT else [0]
    vals = [effect(op, n) for n in opargs]
    for name, fn in FORMS:
        c = vals[0]
        if all(fn(c, n) == v for n, v in zip(opargs, vals)):
            return name, c
    sys.exit("%s: an effect of no known form" % opcode.opname[op])


def main():
    family = {}
    for base, variants in om._specializations.items():
        for v in variants:
            family[om._specialized_opmap[v]] = opcode.opmap[base]
    names = dict(opcode.opname and enumerate(opcode.opname))
    names.update({v: k for k, v in om._specialized_opmap.items()})
    minor = sys.version_info[1]
    print("const struct stack_table stack_3%d = {" % minor)
    print("    .extended_arg = %d, .call = %d, .call_kw = %d, .call_ex = %d," % (
        opcode.opmap["EXTENDED_ARG"], opcode.opmap["CALL"],
        opcode.opmap["CALL_KW"], opcode.opmap["CALL_FUNCTION_EX"]))
    print("    .op = {")
    for op in range(256):
        name = names.get(op, "")
        if not name or name.startswith("<") or name.startswith(UNKNOWN_PREFIXES):
            continue
        base = family.get(op, op)
        bname = opcode.opname[base]
        form, c = form_of(base)
        flags = [form]
        if base in dis.hasjump and bname not in NOT_JUMPS:
            flags.append("SF_BACK" if dis._is_backward_jump(base) else "SF_FWD")
        if bname in STOPS:
            flags.append("SF_STOP")
        entry = "[%d] = { %d, %d, %s }," % (op, base, c, " | ".join(flags))
        print("        %s /* %s */" % (entry.ljust(50), name))
    print("    },")
    print("};")


if __name__ == "__main__":
    main()
