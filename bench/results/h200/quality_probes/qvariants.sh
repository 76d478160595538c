# Variants of the default fill over the quality cases, six at a time, each in its own process.
# usage: bash qvariants.sh TREE SPLIT PEERS.json < VARIANTS   (one "NAME|quality_steps.py arguments" a line)
# TREE is a checkout of the variant, imported first; the outputs go to $OUT/q/SPLIT_NAME.txt.
tree=$1; split=$2; peers=$3
mkdir -p "$OUT/q"
while IFS='|' read -r name args; do
  [ -z "$name" ] && continue
  echo "PYTHONPATH=/tmp/site:$PWD/$tree python3 tools/quality_steps.py $peers --split $split --seeds 0,1,2,3,4 --rules --per-case $args > $OUT/q/${split}_$name.txt 2>&1"
done | xargs -P 6 -I{} bash -c "{}"
