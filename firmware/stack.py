# SPDX-FileCopyrightText: 2026 pqsoc contributors
# SPDX-License-Identifier: Apache-2.0
"""Worst-case stack depth of a firmware program, found statically.

build.py compiles every source with gcc's `-fstack-usage` (NAME.su: each function's frame,
`static`, `dynamic,bounded` or `dynamic`) and `-fcallgraph-info=su` (NAME.ci: each function's
calls as gcc emitted them, libcalls included, an indirect call as `__indirect_call`). Code gcc
did not compile here (crt0.S, picolibc, libgcc) is read from the linked ELF's disassembly: its
frame is the sum of its `addi sp, sp, -N` (plus the peak of a `__riscv_save_N` millicode it
calls, which lowers sp for it), its calls are its `jal`s and its jumps to other functions.

The depth of a function is its frame plus the deepest of its callees; the program's bound is
the depth of `_start` plus that of `_trap_entry` (crt0.S): a trap can be taken at the deepest
point of the program (an exception anywhere, an interrupt wherever mstatus.MIE is set), and it
does not nest: Ibex clears mstatus.MIE on trap entry, trap_handler never sets it, and a fault
inside the handler is fatal. Recursion, a frame gcc reports as unbounded `dynamic`, an
`sp -= register` and an indirect call that INDIRECT does not resolve are errors, not guesses.
"""
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINK_LD = HERE / "lib" / "link.ld"
OBJDUMP = "riscv64-unknown-elf-objdump"
FLAGS = ["-fstack-usage", "-fcallgraph-info=su"]
ROOTS = ("_start", "_trap_entry")

# Indirect calls, resolved by reading the code: caller -> (possible callees, why). A callee
# absent from a program (not linked) is skipped; "@TABLE" stands for every function whose
# address the program's data object TABLE holds (read from the ELF). An indirect call in a
# function not named here fails the analysis.
_FILE_CALLBACKS = ("uart_putc", "uart_getc", "__file_str_put")
INDIRECT = {
    # lib/runtime.c: handlers[n](), a tail call; handlers[] is filled only by irq_attach(), whose
    # callers pass these ISRs (grep irq_attach firmware/).
    "trap_handler": (("timer_isr", "acc_isr"), "handlers[] set by irq_attach()"),
    # lib/results.c run_tests(): the program's test table (struct test, test_fn); its entries
    # are the program's test_* functions and nothing else.
    "run_tests": (("@tests",), "the functions in the program's tests[]"),
    # programs/pqc_mlkem_api.c, pqc_mldsa_api.c: main runs the error_tests[] table.
    "main": (("@error_tests",), "the functions in the program's error_tests[]"),
    # lib/pqc.c finish(..., judge): its callers pass judge_mlkem, judge_none, judge_sign and
    # judge_verify (the judge_* functions, all of lib/pqc.c).
    "finish": (("judge_mlkem", "judge_none", "judge_sign", "judge_verify"),
               "the judge argument of lib/pqc.c's callers"),
    # picolibc tinystdio: FILE put / get callbacks, i.e. the console's (lib/runtime.c) or, for
    # snprintf, the string FILE's __file_str_put. Their `jr` are switch jump tables.
    "__i_vfprintf": (_FILE_CALLBACKS, "FILE->put / jump tables"),
    "__i_vfscanf": (_FILE_CALLBACKS, "FILE->get / jump tables"),
    "vfiscanf": (_FILE_CALLBACKS, "FILE->get / jump tables"),
    "fgetc": (_FILE_CALLBACKS, "FILE->get"),
    "getc": (_FILE_CALLBACKS, "FILE->get"),
    "fputc": (_FILE_CALLBACKS, "FILE->put"),
    "putc": (_FILE_CALLBACKS, "FILE->put"),
    "fputs": (_FILE_CALLBACKS, "FILE->put"),
    "puts": (_FILE_CALLBACKS, "FILE->put"),
}


class StackError(ValueError):
    pass


def stack_reserve(link_ld: Path = LINK_LD) -> int:
    """Bytes the firmware's linker script keeps for the stack at the top of main SRAM."""
    m = re.search(r"_stack_bottom\s*=\s*_stack_top\s*-\s*(\w+)", link_ld.read_text())
    if not m:
        raise StackError(f"{link_ld}: no `_stack_bottom = _stack_top - N`")
    return int(m[1], 0)


@dataclass
class Func:
    name: str
    frame: int = 0
    calls: set = field(default_factory=set)
    indirect: bool = False          # an indirect call (or indirect jump) to be resolved
    dynamic: bool = False           # a frame with no static bound
    source: str = "elf"             # "su" (gcc) or "elf" (disassembly)
    addr: int = -1


@dataclass
class Report:
    program: str
    depth: dict                     # root -> bytes
    path: dict                      # root -> [(function, frame), ...] of the deepest chain
    bound: int
    indirect: dict                  # caller -> (callees linked, why)
    from_elf: list                  # reachable functions measured from the disassembly

    def text(self, reserve: int | None = None) -> str:
        lines = [f"{self.program}: worst-case stack {self.bound} B = "
                 + " + ".join(f"{r} {self.depth[r]}" for r in ROOTS)
                 + (f" (reserve {reserve} B)" if reserve is not None else "")]
        for r in ROOTS:
            lines.append(f"  {r}: " + " -> ".join(f"{f} {n}" for f, n in self.path[r]))
        for caller, (callees, why) in sorted(self.indirect.items()):
            lines.append(f"  indirect in {caller}: {', '.join(callees) or 'none linked'} ({why})")
        lines.append(f"  from the disassembly: {', '.join(sorted(self.from_elf))}")
        return "\n".join(lines)


_SU = re.compile(r"^(?P<loc>.*:\d+:\d+):(?P<name>[^:\s]+)\t(?P<n>\d+)\t(?P<kind>[\w,]+)$")
_CI_NODE = re.compile(r'^node: \{ title: "(?P<title>[^"]+)" label: "(?P<label>[^"]*)"')
_CI_FRAME = re.compile(r"^(?P<name>[^\\]+)\\n(?P<loc>.*:\d+:\d+)\\n(?P<n>\d+) bytes \((?P<kind>[\w,]+)\)$")
_CI_EDGE = re.compile(r'^edge: \{ sourcename: "(?P<src>[^"]+)" targetname: "(?P<dst>[^"]+)"')


def _symbol(title: str) -> str:
    """A .ci title -> the function's symbol: a file-local function is "FILE:SYMBOL"."""
    return title.rsplit(":", 1)[-1]


def read_gcc(obj_dir: Path) -> dict:
    """{function: Func} from every NAME.ci under OBJ_DIR (frames and calls), each checked
    against NAME.su (the same frames). A file-local function of the same name in two files gets
    the larger frame and both files' calls."""
    funcs = {}
    sus = sorted(Path(obj_dir).glob("*.su"))
    if not sus:
        raise StackError(f"{obj_dir}: no .su files (compile with {' '.join(FLAGS)})")
    for su in sus:
        ci = su.with_suffix(".ci")
        if not ci.exists():
            raise StackError(f"{ci} missing (compile with {' '.join(FLAGS)})")
        from_su, from_ci = set(), set()
        for line in su.read_text().splitlines():
            m = _SU.match(line)
            if not m:
                raise StackError(f"{su}: unreadable line {line!r}")
            from_su.add((m["loc"], int(m["n"]), m["kind"]))
        for line in ci.read_text().splitlines():
            if m := _CI_NODE.match(line):
                if not (fr := _CI_FRAME.match(m["label"])):
                    continue                    # a callee defined elsewhere
                from_ci.add((fr["loc"], int(fr["n"]), fr["kind"]))
                name = _symbol(m["title"])
                f = funcs.setdefault(name, Func(name, source="su"))
                f.frame = max(f.frame, int(fr["n"]))
                f.dynamic |= fr["kind"] == "dynamic"   # "dynamic,bounded": n is the bound
            elif m := _CI_EDGE.match(line):
                f = funcs.setdefault(_symbol(m["src"]), Func(_symbol(m["src"]), source="su"))
                if m["dst"] == "__indirect_call":
                    f.indirect = True
                else:
                    f.calls.add(_symbol(m["dst"]))
        if from_su != from_ci:
            raise StackError(f"{su} and {ci.name} disagree: {sorted(from_su ^ from_ci)}")
    return funcs


_LABEL = re.compile(r"^[0-9a-f]+ <(?P<name>[^>]+)>:$")
_SYMBOL = re.compile(r"^(?P<addr>[0-9a-f]+)\s.{7}\s(?P<sec>\S+)\s+(?P<size>[0-9a-f]+)\s+(?:\.hidden\s+)?(?P<name>\S+)$")
_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(?P<op>[\w.]+)\s*(?P<args>.*)$")
_TARGET = re.compile(r"<(?P<sym>[^>+]+)(?P<off>\+0x[0-9a-f]+)?>")
_SAVE = re.compile(r"^__riscv_save_\d+$")
_MILLICODE = re.compile(r"^__riscv_(save|restore)_\d+$")


def table_words(elf: Path, name: str) -> list[int]:
    """The 32-bit little-endian words of the ELF's data object NAME ([] if there is none)."""
    if name not in (syms := _symbols(elf)):
        return []
    lo, n, _ = syms[name]
    dump = subprocess.run([OBJDUMP, "-s", f"--start-address={lo}", f"--stop-address={lo + n}",
                           str(elf)], capture_output=True, text=True).stdout
    data = b""
    for line in dump.splitlines():
        m = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ){1,4})", line + " ")
        if m and int(m[1], 16) >= lo:
            data += bytes.fromhex(m[2].replace(" ", ""))
    data = data[:n]
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4)]


def _symbols(elf: Path) -> dict:
    """{name: (address, size, is an object)} of the ELF's symbol table."""
    r = subprocess.run([OBJDUMP, "-t", str(elf)], capture_output=True, text=True)
    if r.returncode != 0:
        raise StackError(f"{OBJDUMP} -t {elf}: {r.stderr}")
    syms = {}
    for line in r.stdout.splitlines():
        m = _SYMBOL.match(line)
        if m:
            syms[m["name"]] = (int(m["addr"], 16), int(m["size"], 16), " O " in line[8:17])
    return syms


def read_elf(elf: Path) -> dict:
    """{function: Func} from the ELF's disassembly. A function ends at its symbol's size (at the
    next label if it has none): the constants after the code are disassembled too."""
    r = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", str(elf)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise StackError(f"{OBJDUMP} -d {elf}: {r.stderr}")
    syms = _symbols(elf)
    body, addr, cur, end = {}, {}, None, None
    for line in r.stdout.splitlines():
        m = _LABEL.match(line)
        if m:
            name = m["name"]
            a = int(line.split()[0], 16)
            size = syms.get(name, (a, 0, False))[1]
            cur, end = body.setdefault(name, []), a + size if size else None
            addr[name] = a
            continue
        m = _INSN.match(line)
        if m and cur is not None and (end is None or int(line.split(":")[0], 16) < end):
            cur.append((m["op"], m["args"].split("#")[0].strip(), m["args"]))
    funcs = {}
    for name, insns in body.items():
        f = funcs[name] = Func(name, addr=addr[name])
        if _SAVE.match(name):
            # __riscv_save_N: its entry lowers sp by the whole save area first (its peak), then
            # the shared tail stores and gives back what N does not need; jr t0 returns.
            op, args, _ = insns[0]
            regs = args.split(",")
            if op not in ("addi", "add") or regs[:2] != ["sp", "sp"] or int(regs[2]) >= 0:
                raise StackError(f"{elf}: {name} does not start with addi sp, sp, -N")
            f.frame = -int(regs[2])
            continue
        absolute = False
        for op, args, raw in insns:
            regs = args.split(",")
            if regs[0] == "sp" and op in ("auipc", "lui"):
                absolute = True                 # `la sp, X`: sp set, not moved (crt0's _start)
                continue
            if op in ("addi", "add", "c.addi", "c.addi16sp") and regs[:2] == ["sp", "sp"] \
                    and re.fullmatch(r"-?\d+", regs[-1]):
                if not absolute and int(regs[-1]) < 0:
                    f.frame -= int(regs[-1])
                absolute = False
                continue
            absolute = False
            if op == "sub" and regs[0] == "sp" and not _MILLICODE.match(name):
                f.dynamic = True
            t = _TARGET.search(raw)
            if op in ("jal", "jalr") and regs[0] == "t0" and t and _SAVE.match(t["sym"]):
                f.calls.add(t["sym"])          # millicode: its peak is added to this frame
                continue
            if op in ("jal", "jalr", "c.jal", "c.jalr"):
                if t:
                    f.calls.add(t["sym"])
                elif op in ("jalr", "c.jalr"):
                    f.indirect = True
                continue
            if op in ("jr", "c.jr") and regs[0] not in ("ra", "t0"):
                f.indirect = True              # an indirect tail call or a jump table
                continue
            if t and (op in ("j", "c.j") or op.lstrip("c.").startswith("b")) and \
                    t["sym"] != name and not t["off"] and not _MILLICODE.match(name):
                f.calls.add(t["sym"])          # a tail call (j or branch to another function)
    # __riscv_save_N lowers sp for its caller: its peak joins the caller's frame instead of
    # being a call.
    for f in funcs.values():
        for s in [c for c in f.calls if _SAVE.match(c)]:
            if s not in funcs:
                raise StackError(f"{elf}: {f.name} calls {s}, which is not in the ELF")
            f.calls.discard(s)
            f.frame += funcs[s].frame
    return funcs


def _targets(pattern: str, funcs: dict, elf: Path) -> list[str]:
    if pattern.startswith("@"):
        words = set(table_words(elf, pattern[1:]))
        return sorted(n for n, f in funcs.items() if f.addr in words and f.addr >= 0)
    return [pattern] if pattern in funcs else []


def analyse(elf: Path, obj_dir: Path) -> Report:
    """The worst-case stack depth of ELF, whose objects (with .su and .ci) are in OBJ_DIR."""
    elf_funcs = read_elf(elf)
    gcc = read_gcc(obj_dir)
    funcs = {}
    for name, f in elf_funcs.items():
        g = gcc.get(name)
        if g is None:
            funcs[name] = f
        else:   # gcc's frame; gcc's calls plus any direct call the ELF shows (none expected)
            funcs[name] = Func(name, g.frame, g.calls | f.calls, g.indirect or f.indirect,
                               g.dynamic, "su", f.addr)
    names = set(funcs)
    indirect = {}
    for f in funcs.values():
        f.calls = {c for c in f.calls if c in names}   # calls gcc saw inlined or gc'd away
    depth, best, visiting, used = {}, {}, [], set()

    def visit(name: str) -> int:
        if name in depth:
            return depth[name]
        if name in visiting:
            cycle = visiting[visiting.index(name):] + [name]
            raise StackError(f"{elf.name}: recursion {' -> '.join(cycle)}: no static bound")
        f = funcs[name]
        used.add(name)
        if f.dynamic:
            raise StackError(f"{elf.name}: {name} has a dynamic stack frame (alloca / VLA) with "
                             "no static bound")
        callees = set(f.calls)
        if f.indirect:
            if name not in INDIRECT:
                raise StackError(f"{elf.name}: unresolved indirect call in {name}: add its "
                                 "possible callees to firmware/stack.py INDIRECT")
            pats, why = INDIRECT[name]
            targets = [n for p in pats for n in _targets(p, funcs, elf)]
            indirect[name] = (targets, why)
            callees |= set(targets)
        visiting.append(name)
        sub = [(visit(c), c) for c in sorted(callees)]
        visiting.pop()
        d, c = max(sub, default=(0, None))
        depth[name], best[name] = f.frame + d, c
        return depth[name]

    for r in ROOTS:
        if r not in funcs:
            raise StackError(f"{elf.name}: no {r} (crt0.S)")
        visit(r)
    paths = {}
    for r in ROOTS:
        chain, n = [], r
        while n is not None:
            chain.append((n, funcs[n].frame))
            n = best[n]
        paths[r] = chain
    return Report(Path(elf).stem, {r: depth[r] for r in ROOTS}, paths,
                  sum(depth[r] for r in ROOTS), indirect,
                  sorted(n for n in used if funcs[n].source == "elf"))


def check(elf: Path, obj_dir: Path, link_ld: Path = LINK_LD) -> Report:
    """analyse(), and a StackError when the bound exceeds the linker script's stack reserve."""
    rep = analyse(elf, obj_dir)
    reserve = stack_reserve(link_ld)
    if rep.bound > reserve:
        raise StackError(f"{rep.text(reserve)}\n{rep.program}: the worst-case stack "
                         f"({rep.bound} B) exceeds link.ld's reserve ({reserve} B)")
    return rep
