#!/bin/sh
# heldout.sh builds the held-out merge-replay set of BENCHMARKS.md ("Real
# edits from public history"): real concurrent edits from repositories that
# are not in the corpus, where a release branch and the main line diverged.
#
#	internal/replaytest/mkreplay/heldout.sh OUT   # from the repository's root
#	HASHLS_MERGE_REPLAY=OUT go test ./edit -run TestMergeReplay -v
#
# For each line of the table below: base = the release at (or nearest to)
# the point where the release branch was cut, one side = the branch's last
# patch release (its backports), the other = the next minor release (the
# main line). Every file that both sides changed and git merge-file merges
# cleanly is a case, once with the branch as ours (OUT/NAME-BASE.A.jsonl.gz)
# and once with the main line as ours (OUT/NAME-BASE.B.jsonl.gz). The versions
# come from the Go module proxy (go mod download into OUT/modcache, about
# 6 GB: the Go trees are its toolchain modules); the cases are about 22 MB.
set -eu
out=${1:?usage: heldout.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export GOMODCACHE="$out/modcache" GOFLAGS=-modcacherw
tool="$out/mkreplay"
go build -o "$tool" ./internal/replaytest/mkreplay

dir() { # module version -> its directory in the module cache
	d=$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$d" ] || { echo "heldout.sh: go mod download $1@$2 failed" >&2; exit 1; }
	echo "$d"
}

# name  module  base  branch's last patch  next minor (main line)
while read -r name mod base branch main; do
	case "$name" in '#'*|'') continue ;; esac
	b=$(dir "$mod" "$base")
	r=$(dir "$mod" "$branch")
	m=$(dir "$mod" "$main")
	v() { echo "$1" | sed 's/^v0\.0\.1-//; s/\.linux-amd64$//'; }
	tag="$(v "$base"):$(v "$branch"):$(v "$main")"
	"$tool" -base "$b" -ours "$r" -theirs "$m" -name "$name" -merge "$tag" -out "$out/$name-$(v "$base").A.jsonl.gz"
	"$tool" -base "$b" -ours "$m" -theirs "$r" -name "$name" -merge "$tag" -out "$out/$name-$(v "$base").B.jsonl.gz"
done <<'EOF'
go golang.org/toolchain v0.0.1-go1.21.0.linux-amd64 v0.0.1-go1.21.13.linux-amd64 v0.0.1-go1.22.0.linux-amd64
go golang.org/toolchain v0.0.1-go1.22rc1.linux-amd64 v0.0.1-go1.22.12.linux-amd64 v0.0.1-go1.23.0.linux-amd64
go golang.org/toolchain v0.0.1-go1.23rc1.linux-amd64 v0.0.1-go1.23.12.linux-amd64 v0.0.1-go1.24.0.linux-amd64
go golang.org/toolchain v0.0.1-go1.24.0.linux-amd64 v0.0.1-go1.24.13.linux-amd64 v0.0.1-go1.25.0.linux-amd64
go golang.org/toolchain v0.0.1-go1.25.0.linux-amd64 v0.0.1-go1.25.14.linux-amd64 v0.0.1-go1.26.0.linux-amd64
go golang.org/toolchain v0.0.1-go1.26rc1.linux-amd64 v0.0.1-go1.26.11.linux-amd64 v0.0.1-go1.27.0.linux-amd64
gopls golang.org/x/tools/gopls v0.21.0-pre.1 v0.21.1 v0.22.0
gopls golang.org/x/tools/gopls v0.22.0-pre.1 v0.22.0 v0.23.0
grpc google.golang.org/grpc v1.56.0 v1.56.3 v1.57.0
grpc google.golang.org/grpc v1.58.0 v1.58.3 v1.59.0
grpc google.golang.org/grpc v1.67.0 v1.67.3 v1.68.0
grpc google.golang.org/grpc v1.79.0 v1.79.3 v1.80.0
grpc google.golang.org/grpc v1.83.0 v1.83.2 v1.84.0
client-go k8s.io/client-go v0.35.0-rc.0 v0.35.10 v0.36.0
client-go k8s.io/client-go v0.36.0-rc.0 v0.36.6 v0.37.0
etcd go.etcd.io/etcd/server/v3 v3.6.0 v3.6.16 v3.7.0
client_golang github.com/prometheus/client_golang v1.20.0 v1.20.5 v1.21.0
EOF
ls -l "$out"/*.jsonl.gz
