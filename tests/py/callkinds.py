"""Every way CPython enters a Python function, each for the same time.

    callkinds.py list          prints "KIND CALLEE" for every kind of call
    callkinds.py run SECONDS   calls each kind in turn for SECONDS, then
                               prints "spent KIND SECONDS" for each

Each kind of call enters its own callee (named by list), which spins in
spin() for about a millisecond; each callee's share of the samples should
be its share of the time the program measured: none may go missing because
the way it was entered made its stacks look torn.
"""
import random
import sys
import time

N = 4000


def spin():
    s = 0
    for i in range(N):
        s += i
    return s


def spin_plain(): return spin()
def spin_defaults(a, b=2, *, c=3): return spin()
def spin_star(*args): return spin()
def spin_kwargs(**kw): return spin()
def spin_map(x): return spin()
def spin_comp(): return spin()


class Thing:
    def method(self): return spin()
    def method2(self): return spin()

    @property
    def prop(self): return spin()

    def __getitem__(self, i): return spin()
    def __add__(self, other): return spin()
    def __call__(self): return spin()

    def __enter__(self):
        spin()
        return self

    def __exit__(self, *a): return False

    @staticmethod
    def static(): return spin()

    @classmethod
    def klass(cls): return spin()


class Child(Thing):
    def method2(self): return super().method2()


class Made:
    def __init__(self): self.v = spin()


class Lookup:
    def __getattr__(self, name): return spin()


class Intercept:
    def __getattribute__(self, name): return spin()


class Counter:
    def __init__(self): self.left = 1
    def __iter__(self): return self

    def __next__(self):
        if not self.left:
            raise StopIteration
        self.left = 0
        return spin()


def gen_for(): yield spin()
def gen_next(): yield spin()
def gen_inner(): yield spin()
def gen_from(): yield from gen_inner()
async def coro_inner(): return spin()
async def coro_outer(): return await coro_inner()


def wrap(f):
    def wrapper(*a):
        return f(*a)
    return wrapper


@wrap
def spin_wrapped(): return spin()


def drive(c):
    try:
        c.send(None)
    except StopIteration:
        pass


def enter(t):
    with t:
        pass


def kinds():
    t, c = Thing(), Child()
    lk, ic = Lookup(), Intercept()
    return [
        ('plain', 'spin_plain', lambda: spin_plain()),
        ('defaults', 'spin_defaults', lambda: spin_defaults(1, c=4)),
        ('star', 'spin_star', lambda: spin_star(*(1, 2))),
        ('kwargs', 'spin_kwargs', lambda: spin_kwargs(**{'a': 1})),
        ('method', 'Thing.method', lambda: t.method()),
        ('super', 'Thing.method2', lambda: c.method2()),
        ('property', 'Thing.prop', lambda: t.prop),
        ('getitem', 'Thing.__getitem__', lambda: t[0]),
        ('getattr', 'Lookup.__getattr__', lambda: lk.missing),
        ('getattribute', 'Intercept.__getattribute__', lambda: ic.x),
        ('operator', 'Thing.__add__', lambda: t + t),
        ('call', 'Thing.__call__', lambda: t()),
        ('with', 'Thing.__enter__', lambda: enter(t)),
        ('static', 'Thing.static', lambda: Thing.static()),
        ('classmethod', 'Thing.klass', lambda: Thing.klass()),
        ('init', 'Made.__init__', lambda: Made()),
        ('iterator', 'Counter.__next__', lambda: [v for v in Counter()]),
        ('for_gen', 'gen_for', lambda: [v for v in gen_for()]),
        ('next', 'gen_next', lambda: next(gen_next())),
        ('yield_from', 'gen_inner', lambda: list(gen_from())),
        ('await', 'coro_inner', lambda: drive(coro_outer())),
        ('map', 'spin_map', lambda: list(map(spin_map, (1,)))),
        ('wrapped', 'spin_wrapped', lambda: spin_wrapped()),
        ('comprehension', 'spin_comp', lambda: [spin_comp() for _ in (1,)]),
    ]


def main():
    if sys.argv[1] == 'list':
        for kind, callee, _ in kinds():
            print(kind, callee)
        return
    ks = kinds()
    spent = [0.0] * len(ks)
    order = list(range(len(ks)))
    end = time.monotonic() + float(sys.argv[2])
    while time.monotonic() < end:
        random.shuffle(order)       # no kind keeps a phase of the ticks
        for i in order:
            t0 = time.perf_counter()
            ks[i][2]()
            spent[i] += time.perf_counter() - t0
    for (kind, _, _), s in zip(ks, spent):
        print('spent', kind, '%.6f' % s)


if __name__ == '__main__':
    main()
