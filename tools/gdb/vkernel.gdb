source /work/wt/ddb/tools/gdb/vkernel.py
