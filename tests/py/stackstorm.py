"""Threads that change their stacks as fast as they can, and the program's
own call graph to check every recorded stack against.

    stackstorm.py graph [FILE]     prints the call graph of this file, or
                                   of FILE (tests/py/async_tasks.py)
    stackstorm.py run SECONDS [HZ] runs for SECONDS; with HZ, a copy of
                                   itself runs alongside with PYPROF_HZ=HZ

Run with -S -I: the run imports only built-in modules, so that every
Python frame of the process is one of this file's.  Every function is
top-level (qualname == name) and every call of one is on a single line.
Lines that resume a generator or coroutine say so in a "resumes:" comment;
functions given to start_new_thread are thread entries, and so is
<module>.
"""
import posix
import sys
import _thread
import time

sys.setrecursionlimit(4000)
lock = _thread.allocate_lock()
live = [0]
stop = [False]


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def leaf(n):
    return n


def tight(n):
    i = 0
    while i < n:
        leaf(i)
        i += 1
    return i


def descend(n):
    if n == 0:
        return fib(6)
    return descend(n - 1) + 1


def fail(n):
    if n == 0:
        raise ValueError(n)
    return fail(n - 1)


def catch_at(n):
    try:
        return fail(n)
    except ValueError:
        return fib(3)


def numbers(n):
    i = 0
    while i < n:
        yield fib(i % 5)
        i += 1


def evens(src):
    for v in src:  # resumes: numbers
        if v % 2 == 0:
            yield v


def relay(n):
    yield from evens(numbers(n))  # resumes: evens
    yield descend(3)


def thrower(n):
    try:
        while True:
            yield n
    except KeyError:
        yield fail(4)


async def leaf_coro(n):
    return fib(n)


async def mid_coro(n):
    a = await leaf_coro(n)  # resumes: leaf_coro
    return a + catch_at(5)


def drive(n):
    c = mid_coro(n)
    try:
        c.send(None)  # resumes: mid_coro
    except StopIteration as e:
        return e.value


def pipeline(n):
    total = 0
    for v in relay(n):  # resumes: relay
        total += v
    g = thrower(n)
    next(g)  # resumes: thrower
    try:
        g.throw(KeyError)  # resumes: thrower
    except ValueError:
        total += 1
    return total


def mix(k):
    t = 0
    t += fib(8 + k % 4)
    t += descend(20 + k % 30)
    t += catch_at(k % 12)
    t += pipeline(20)
    t += drive(k % 7)
    t += sum(evens(numbers(30)))  # resumes: evens
    t += tight(1500)
    return t


def short_lived(k):
    mix(k)
    with lock:
        live[0] -= 1


def worker(k):
    while not stop[0]:
        mix(k)
        k += 1
    with lock:
        live[0] -= 1


def spawn(k):
    with lock:
        live[0] += 1
    _thread.start_new_thread(short_lived, (k,))


def start_worker(k):
    with lock:
        live[0] += 1
    _thread.start_new_thread(worker, (k,))


def wait_all():
    while True:
        with lock:
            if live[0] == 0:
                return
        time.sleep(0.001)


def start_copy(hz):
    env = dict(posix.environ)
    env[b"PYPROF_HZ"] = str(hz).encode()
    args = [sys.executable, "-S", "-I", __file__, "run", sys.argv[2]]
    return posix.posix_spawn(sys.executable, args, env)


def run(seconds):
    start_worker(1)
    start_worker(2)
    end = time.monotonic() + seconds
    k = 0
    while time.monotonic() < end:
        spawn(k)
        mix(k)
        k += 1
    stop[0] = True
    wait_all()


def graph(path):
    import ast
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src)
    funcs = {}
    print("file", path)
    print("entry <module>")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            gen = isinstance(node, ast.AsyncFunctionDef) or any(
                isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node))
            funcs[node.name] = (node.lineno, node.end_lineno)
            print("func", node.name, node.lineno, node.end_lineno,
                  "resumed" if gen else "called")

    def owner(line):
        for name, (a, b) in funcs.items():
            if a <= line <= b:
                return name
        return "<module>"

    ccalls = set()
    # A coroutine given to asyncio.run or create_task runs in a task, not
    # in the frame that made it: "task FUNC NAME" (NAME as the sampler
    # names it, <task> for asyncio's default), and no call.
    in_task = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr in ("run", "create_task") and node.args and
                isinstance(node.args[0], ast.Call) and
                isinstance(node.args[0].func, ast.Name) and
                node.args[0].func.id in funcs):
            name = [k.value.value for k in node.keywords
                    if k.arg == "name" and isinstance(k.value, ast.Constant)]
            print("task", node.args[0].func.id,
                  "<task %s>" % name[0] if name else "<task>")
            in_task.add(id(node.args[0]))
        # an import runs the import machinery and the module's code
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            ccalls.add((owner(node.lineno), node.lineno))
        # a line where a coroutine awaits: its frame stands there while
        # what it awaits runs (asyncio's frames, or another task)
        if isinstance(node, (ast.Await, ast.AsyncWith, ast.AsyncFor)):
            print("awaits", owner(node.lineno), node.lineno)
    for node in ast.walk(tree):
        # a with statement calls its context manager's __enter__ and
        # __exit__ on its own line
        if isinstance(node, ast.With):
            ccalls.add((owner(node.lineno), node.lineno))
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if id(node) in in_task:
            continue
        if isinstance(f, ast.Name) and f.id in funcs:
            assert node.lineno == node.end_lineno, node.lineno
            print("call", owner(node.lineno), node.lineno, f.id)
        else:
            for no in range(node.lineno, node.end_lineno + 1):
                ccalls.add((owner(no), no))
        if (isinstance(f, ast.Attribute) and f.attr == "start_new_thread" and
                isinstance(node.args[0], ast.Name)):
            print("entry", node.args[0].id)
    for name, no in sorted(ccalls):
        print("ccall", name, no)
    for no, text in enumerate(src.splitlines(), 1):
        if "# resumes: " in text and not text.lstrip().startswith(("#", '"')):
            for name in text.split("# resumes: ")[1].split():
                print("resume", owner(no), no, name)


if __name__ == "__main__":
    if sys.argv[1] == "graph":
        graph(sys.argv[2] if len(sys.argv) > 2 else __file__)
    else:
        child = start_copy(int(sys.argv[3])) if len(sys.argv) > 3 else None
        run(float(sys.argv[2]))
        if child:
            _, status = posix.waitpid(child, 0)
            sys.exit(1 if status else 0)
