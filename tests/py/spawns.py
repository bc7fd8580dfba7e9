"""Starts a Python child every way a program can, with the environment
replaced or cleared where the API allows, then exits.

Each child runs tests/py/kid.py TAG, which burns CPU in kid_TAG-named code.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KID = os.path.join(HERE, "kid.py")
PY = sys.executable


def main():
    subprocess.run([PY, KID, "env_empty"], env={}, check=True)
    subprocess.run([PY, KID, "env_replaced"], env={"A": "1"}, check=True)
    pid = os.posix_spawn(PY, [PY, KID, "posix_spawn"], {})
    os.waitpid(pid, 0)
    assert os.system(f"{PY} {KID} system | cat >/dev/null") == 0
    subprocess.run(["sh", "-c", f"{PY} {KID} sh_c"], check=True)
    subprocess.run(["env", "-i", PY, KID, "env_i"], check=True)
    subprocess.run([PY, KID, "preexec"], preexec_fn=lambda: None, check=True)
    subprocess.run([PY, KID, "short", "0.05"], check=True)
    print("spawned")


if __name__ == "__main__":
    main()
