# A tmpfs unmounts right after the exit of a program run from it
# (inside/c/umountexit.c): an exited process's address space released
# in the background must not leave the file system busy.
/t/inside/bin/umountexit 50
