# C programs (musl, static): their output must be Linux's.
T=$1
for p in "$T"/bin/*; do
	echo "== $(basename "$p")"
	"$p"; echo "status $?"
done
