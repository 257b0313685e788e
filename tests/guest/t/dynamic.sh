# Dynamically linked programs: glibc's ld.so as the program interpreter
# (PT_INTERP), libc.so.6 mapped from its file; then interpreters that
# are missing, corrupt or dynamic themselves (badinterp).
T=$1
"$T/dyn/dynhello" one "two words"; echo "status $?"
"$T/dyn/badinterp" "$T/dyn/dynhello" /lib64/ld-linux-x86-64.so.2; echo "status $?"
