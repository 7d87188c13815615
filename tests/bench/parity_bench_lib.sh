# Sourced by bench_raid5.sh and bench_raid6.sh: reading fio/`bench` JSON
# output and the arithmetic of their side-by-side figures.
bw() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=sys.argv[2]; print(sum(j[k]["bw_bytes"] for j in d["jobs"]))' "$1" "$2"; }
iops() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(j["read"]["iops"] for j in d["jobs"]))' "$1"; }
ratio() { python3 -c "print($1/$2)"; }
calc() { python3 -c "print($1)"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
