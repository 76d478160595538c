#!/bin/bash
# Whole `inpaint resize` commands, two trees taking turns, three rounds: a 1600x1200 16-bit TIFF
# and 8-bit PNG (smooth gradients with noise, made by the snippet below) to 2000 wide (enlarged)
# and 1200 wide (shrunk).  Usage: time.sh WORK_FOLDER BASE_TREE NEW_TREE
#   python -c "import numpy as np, tifffile; from PIL import Image; rng=np.random.default_rng(0);
#   y,x=np.mgrid[0:1200,0:1600]; a=np.stack([20000+20*x+rng.normal(0,300,x.shape),
#   30000+15*y+rng.normal(0,300,x.shape), 10000+10*(x+y)+rng.normal(0,300,x.shape)],-1).clip(0,65535).astype(np.uint16);
#   tifffile.imwrite('p16.tif', a); Image.fromarray((a>>8).astype(np.uint8)).save('p8.png')"
cd "$1" || exit 2
for r in 1 2 3; do
  for tree in "$2" "$3"; do
    for f in p16.tif p8.png; do
      for w in 2000 1200; do
        s=$(date +%s.%N); PYTHONPATH=$tree XDG_CACHE_HOME=$PWD/cache python -m inpaint resize $f --width $w -o out_$w.${f##*.} -y -q; e=$(date +%s.%N)
        echo "$r $(basename $tree) $f $w $(echo "$e - $s" | bc)"
      done
    done
  done
done
