#!/bin/sh
# engines.sh - the README's recipes for running labelaudit on
# existing engines, run for real where the engine is at hand: Spark's
# RDD.pipe in local mode (pyspark and a Java runtime) and a Slurm job array
# with a dependent merge (a cluster that answers sinfo, e.g. a single-node
# slurmctld + slurmd from Debian's slurm-wlm). Each merged report must equal
# --concat over the same shards, the path fields aside. Elsewhere each case
# is skipped with the reason. (GNU parallel is in tests/datasets/merge.sh.)
. "$srcdir/tests/setup.sh"

mkdir "$d/shards" "$d/reports"
i=0
while [ $i -lt 10 ]; do
    awk -v i=$i 'BEGIN { for (r = 0; r < 30 + i; r++) print (r * 5 + i) % 12 }' \
        >"$d/shards/s$(printf %02d $i).txt"
    i=$((i + 1))
done
"$LABELAUDIT" --json -n 10 -b 16 --concat "$d"/shards/*.txt >"$d/concat.json"
jq -S 'del(.files[].path, .files[].sources[].path)' "$d/concat.json" >"$d/concat.s"

same_as_concat() {  # same_as_concat REPORT DESCRIPTION
    jq -S 'del(.files[].path, .files[].sources[].path)' "$1" >"$d/merge.s" 2>/dev/null
    cmp -s "$d/concat.s" "$d/merge.s"
    ok $? "$2"
}

echo "# --- Spark: rdd.pipe, one labelaudit per partition"
if python3 -c 'import pyspark' 2>/dev/null && command -v java >/dev/null 2>&1; then
    python3 - "$d" "$LABELAUDIT" >"$d/spark.log" 2>&1 <<'EOF'
import glob, subprocess, sys
from pyspark import SparkContext
d, labelaudit = sys.argv[1], sys.argv[2]   # Spark's workers do not get this PATH
sc = SparkContext("local[2]", "labelaudit-engines")
paths = sorted(glob.glob(d + "/shards/*.txt"))
docs = (sc.parallelize(paths, 4)
          .pipe(f"xargs '{labelaudit}' --json -n 10 -b 16 --concat")
          .glom().map("\n".join).collect())
sc.stop()
for i, doc in enumerate(docs):
    open(f"{d}/reports/spark-{i:04d}.json", "w").write(doc)
with open(d + "/spark.json", "w") as out:
    subprocess.run([labelaudit, "--json", "--merge"] +
                   [f"{d}/reports/spark-{i:04d}.json" for i in range(len(docs))], stdout=out)
EOF
    ok $? "the Spark recipe runs (pyspark, local[2])"
    [ -s "$d/spark.json" ] || sed 's/^/# /' "$d/spark.log" | tail -5
    same_as_concat "$d/spark.json" "Spark: --merge of the partitions' reports == --concat"
else
    echo "ok $((n_tests += 1)) # SKIP Spark: pyspark or a Java runtime is missing"
fi

echo "# --- Slurm: a job array, then a dependent merge"
if command -v sbatch >/dev/null 2>&1 && sinfo -h >/dev/null 2>&1; then
    ls "$d"/shards/*.txt >"$d/shards.txt"
    job=$(cd "$d" && sbatch --parsable --array=0-4 --wrap "
        '$LABELAUDIT' --json -n 10 -b 16 --concat \
            \$(sed -n \"\$((SLURM_ARRAY_TASK_ID * 2 + 1)),+1p\" shards.txt) \
            > reports/slurm-\$(printf %04d \$SLURM_ARRAY_TASK_ID).json; [ \$? -le 1 ]")
    (cd "$d" && sbatch --wait --dependency=afterok:"$job" \
        --wrap "'$LABELAUDIT' --json --merge reports/slurm-*.json > slurm.json") >/dev/null
    ok $? "the Slurm recipe runs (array job $job and its merge)"
    same_as_concat "$d/slurm.json" "Slurm: --merge of the array's reports == --concat"
else
    echo "ok $((n_tests += 1)) # SKIP Slurm: no sbatch, or no cluster answers sinfo (slurm-wlm)"
fi
finish
