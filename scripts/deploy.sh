#!/usr/bin/env bash
# Deploys Introductions: packages the module source and runs terraform apply
# in infra/, which deploys every function (infra/README.md). Terraform is the
# one deploy path; this script names no function and sets no function
# setting, so it cannot drift from infra/.
#
# The archive holds the files `gcloud meta list-files-for-upload` lists from
# the repository root (what .gcloudignore lets through: go.mod, go.sum, the
# root package and the packages it imports; no infra/, state, tfvars,
# node_modules, screenshots or tests), zipped with fixed timestamps so the
# same files make the same bytes: infra/ names the object by its MD5, so
# unchanged code redeploys nothing.
#
# Usage: scripts/deploy.sh [--dry-run | --list-files] [terraform apply option ...]
#   --dry-run     print the commands instead of running them
#   --list-files  print the files the archive would hold, and stop
#   options       passed to terraform apply (e.g. -auto-approve,
#                 -var-file=prod.tfvars); the inputs come from
#                 infra/terraform.tfvars (infra/README.md)
#
# Needs gcloud, zip and terraform on PATH, and gcloud credentials for
# Terraform (gcloud auth application-default login).
set -euo pipefail

die() {
  echo "deploy.sh: $*" >&2
  exit 1
}

# quote prints its arguments as one shell command line.
quote() {
  local a sep=""
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@,+-]+$ ]]; then
      printf '%s%s' "$sep" "$a"
    else
      printf "%s'%s'" "$sep" "${a//\'/\'\\\'\'}"
    fi
    sep=" "
  done
  printf '\n'
}

mode=deploy
apply_args=()
for arg in "$@"; do
  case "$arg" in
  --dry-run) mode=dry-run ;;
  --list-files) mode=list ;;
  -h | --help)
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "$0"
    exit 0
    ;;
  --*) die "unknown flag $arg (see --help)" ;;
  -*) apply_args+=("$arg") ;;
  *) die "unexpected argument $arg: this script deploys every function (see --help)" ;;
  esac
done

# Where the archive is made (TMPDIR, made absolute before leaving the
# caller's directory).
work=${TMPDIR:-/tmp}
work=${work%/}/introductions-deploy
[[ $work == /* ]] || work=$PWD/$work

cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f go.mod ]] || die "no go.mod at the repository root"
root_go=(*.go)
[[ -e ${root_go[0]} ]] || die "no root package: the Go buildpack builds only the root package, which must register every entry point"
for f in *_test.go; do
  [[ -e $f ]] || continue
  if grep -q '^package [A-Za-z0-9_]*_test$' "$f"; then
    die "$f is an external test package at the root, which breaks the Go functions buildpack"
  fi
done

archive=$work/introductions-source.zip
list=(gcloud meta list-files-for-upload .)
apply=(terraform -chdir=infra apply "-var=source_archive=$archive" ${apply_args[@]+"${apply_args[@]}"})

if [[ $mode == dry-run ]]; then
  quote "${list[@]}"
  quote zip -X -q -@ "$archive"
  quote "${apply[@]}"
  exit 0
fi

files=$("${list[@]}" | LC_ALL=C sort)
[[ -n $files ]] || die "gcloud listed no files to upload"
# A last guard: none of these may ever leave the machine.
if bad=$(grep -E '^\.git$|(^|/)(\.git/|infra/|\.terraform/|node_modules/|testdata/|screenshots/)|\.tfstate|\.tfvars|_test\.go$|\.zip$' <<<"$files"); then
  die "the upload would include files .gcloudignore should exclude:"$'\n'"$bad"
fi
for required in go.mod go.sum; do
  grep -qx "$required" <<<"$files" || die "$required is not among the files to upload (see .gcloudignore)"
done
if [[ $mode == list ]]; then
  echo "$files"
  exit 0
fi

rm -rf "$work"
mkdir -p "$work/source"
while IFS= read -r f; do
  mkdir -p "$work/source/$(dirname "$f")"
  cp -p "$f" "$work/source/$f"
done <<<"$files"
# Fixed modes and timestamps (zip stores local time: pin it to UTC), no
# extra attributes: the same files give the same archive on any machine.
find "$work/source" -type f -exec chmod 0644 {} +
find "$work/source" -exec touch -h -d '1980-01-02T00:00:00Z' {} +
(cd "$work/source" && TZ=UTC zip -X -q -@ "$archive" <<<"$files")
echo "deploy.sh: $(wc -l <<<"$files" | tr -d ' ') files, $(wc -c <"$archive" | tr -d ' ') bytes in $archive" >&2
"${apply[@]}"
