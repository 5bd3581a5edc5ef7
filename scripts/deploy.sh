#!/usr/bin/env bash
# Deploys Introductions: packages each function's source and runs terraform
# apply in infra/, which deploys every function (infra/README.md). Terraform
# is the one deploy path: this script names no function and sets no function
# setting, so it cannot drift from infra/.
#
# The Go buildpack builds only the root package of a function's source, so
# each function gets an archive of its own: for each entry package
# functions/<key>/entry, <key>.zip holds the files that package's build needs
# (go list -deps: go.mod, go.sum, the Go and embedded files of every package
# of the module it imports, for linux/amd64), with the entry package's files
# at the root. A function's binary then links only what it uses (Challenge
# and Forms no Firestore client and no gRPC), and a change redeploys only the
# functions whose files it touches: the archives are zipped with fixed
# timestamps, so the same files make the same bytes, and infra/ names each
# object by its MD5. No test, testdata, infra/, state or tfvars is ever in
# an archive (the script refuses).
#
# Usage: scripts/deploy.sh [--dry-run | --list-files | --stage DIR] [terraform apply option ...]
#   --dry-run     check, changing nothing, that a deploy can start (below),
#                 then print the commands instead of running them
#   --list-files  print the files each archive would hold, as <key>/<path>,
#                 and stop
#   --stage DIR   write each function's source to DIR/<key>/ (what its
#                 archive holds, unzipped), and stop; make bench builds them
#                 as the buildpack does
#   options       passed to terraform apply (e.g. -auto-approve,
#                 -var-file=prod.tfvars); the inputs come from
#                 infra/terraform.tfvars (infra/README.md)
#
# Needs go, zip and terraform on PATH, and gcloud credentials for Terraform
# (gcloud auth application-default login).
#
# The dry run's pre-flight stops at the first of these that fails, with one
# sentence and the command that fixes it: infra/terraform.tfvars exists and
# sets every input without a default, and smtp (the owner's email; null to
# go without); terraform init has run in infra/; the provider lock file
# infra/.terraform.lock.hcl is there; application default credentials
# exist; and then, asking gcloud (read only), every secret the functions
# read has an enabled version.
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
stage_dir=
apply_args=()
while (($#)); do
  arg=$1
  shift
  case "$arg" in
  --dry-run) mode=dry-run ;;
  --list-files) mode=list ;;
  --stage)
    (($#)) || die "--stage needs a directory"
    mode=stage stage_dir=$1
    shift
    ;;
  -h | --help)
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "$0"
    exit 0
    ;;
  --*) die "unknown flag $arg (see --help)" ;;
  -*) apply_args+=("$arg") ;;
  *) die "unexpected argument $arg: this script deploys every function (see --help)" ;;
  esac
done

# Where the archives are made (TMPDIR, made absolute before leaving the
# caller's directory), and where --stage writes.
work=${TMPDIR:-/tmp}
work=${work%/}/introductions-deploy
[[ $work == /* ]] || work=$PWD/$work
if [[ $mode == stage ]]; then
  [[ $stage_dir == /* ]] || stage_dir=$PWD/$stage_dir
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
[[ -f go.mod ]] || die "no go.mod at the repository root"
keys=()
for dir in functions/*/entry/; do
  [[ -d $dir ]] && keys+=("$(basename "$(dirname "$dir")")")
done
((${#keys[@]})) || die "no entry packages functions/*/entry/: each function's archive is made from its own"

archives=$work/archives
# The files of an entry package's build, module files only.
list_template='{{if and .Module .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}'
list=(env GOOS=linux GOARCH=amd64 go list -deps -f "$list_template")
apply=(terraform -chdir=infra apply "-var=source_dir=$archives" ${apply_args[@]+"${apply_args[@]}"})

# tfvar prints the value of a top-level input set in terraform.tfvars on
# one line (name = "value" or name = value), without quotes.
tfvar() {
  sed -n -E "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\"?([^\"#]*[^\"#[:space:]])\"?.*/\1/p" infra/terraform.tfvars | head -n 1
}

# preflight checks that a deploy can start, changing nothing.
preflight() {
  local tfvars=infra/terraform.tfvars
  [[ -f $tfvars ]] || die "infra/terraform.tfvars is missing: copy the example with \`cp infra/terraform.tfvars.example infra/terraform.tfvars\` and fill it in (infra/README.md, Deploying, step 2)."
  # Every input without a default (but the archives, which this script
  # passes), and smtp: without it the owner gets no mail at all.
  local required missing=() v
  required=$(awk '/^variable "/ { name = $2; gsub(/"/, "", name); dflt = 0 } /^  default[[:space:]]*=/ { dflt = 1 } /^}/ { if (name != "" && !dflt) print name; name = "" }' infra/variables.tf)
  for v in $required smtp; do
    [[ $v == source_dir ]] && continue
    grep -Eq "^[[:space:]]*$v[[:space:]]*=" "$tfvars" || missing+=("$v")
  done
  ((${#missing[@]} == 0)) || die "infra/terraform.tfvars does not set ${missing[*]}: add $( ((${#missing[@]} == 1)) && echo it || echo them) as infra/terraform.tfvars.example shows (smtp = null goes without the owner's email)."
  [[ -d infra/.terraform/providers ]] || die "terraform init has not run in infra/: run \`terraform -chdir=infra init\`."
  [[ -f infra/.terraform.lock.hcl ]] || die "the provider lock file infra/.terraform.lock.hcl is missing: run \`terraform -chdir=infra providers lock -platform=linux_amd64 -platform=darwin_arm64 -platform=darwin_amd64 -platform=windows_amd64\` and commit it."
  local adc=${GOOGLE_APPLICATION_CREDENTIALS:-${CLOUDSDK_CONFIG:-$HOME/.config/gcloud}/application_default_credentials.json}
  [[ -f $adc ]] || die "no application default credentials ($adc): run \`gcloud auth application-default login\`."
  command -v gcloud >/dev/null || die "gcloud is not on PATH: install the Google Cloud CLI, which reads the secrets' versions."
  local project pepper secrets=(intake-hmac-key) s found
  project=$(tfvar project_id)
  pepper=$(tfvar hash_pepper_version)
  pepper=${pepper:-1}
  # The secrets read as environment variables, only when their
  # destination is turned on (infra/secrets.tf, local.secret_env).
  [[ -n $(tfvar webhook_url) && $(tfvar webhook_url) != null ]] && secrets+=(intake-webhook-secret)
  grep -Eq '^[[:space:]]*username[[:space:]]*=[[:space:]]*"' "$tfvars" && secrets+=(intake-smtp-password)
  [[ $(tfvar mailgun_events) == true ]] && secrets+=(intake-mailgun-signing-key)
  local create="\`terraform -chdir=infra apply -target=google_secret_manager_secret.secret -var=source_dir=/dev/null\`"
  found=$(gcloud secrets versions describe "$pepper" --secret=intake-hash-pepper --project="$project" --format='value(state)' 2>/dev/null) ||
    die "the secret intake-hash-pepper of project $project has no version $pepper (hash_pepper_version): create the secrets with $create, then add it with \`openssl rand -base64 48 | tr -d '\\n' | gcloud secrets versions add intake-hash-pepper --project=$project --data-file=-\`."
  [[ $found == ENABLED ]] || die "version $pepper of the secret intake-hash-pepper is $found: enable it with \`gcloud secrets versions enable $pepper --secret=intake-hash-pepper --project=$project\`."
  for s in "${secrets[@]}"; do
    found=$(gcloud secrets versions list "$s" --project="$project" --filter=state:ENABLED --limit=1 --format='value(name)' 2>/dev/null) ||
      die "the secret $s could not be read in project $project: create the secrets with $create."
    [[ -n $found ]] || die "the secret $s of project $project has no enabled version: add one with \`gcloud secrets versions add $s --project=$project --data-file=FILE\` (infra/README.md, Deploying, step 3)."
  done
  echo "deploy.sh: pre-flight passed: terraform.tfvars, terraform init, the lock file, credentials and $((${#secrets[@]} + 1)) secrets with a version." >&2
}

if [[ $mode == dry-run ]]; then
  preflight
  for key in "${keys[@]}"; do
    quote "${list[@]}" "./functions/$key/entry"
    quote zip -X -q -@ "$archives/$key.zip"
  done
  quote "${apply[@]}"
  exit 0
fi

# files prints the archive of key's files, one "<source> <path in the
# archive>" per line sorted by the latter: the entry package's own files at
# the root, go.mod and go.sum, every other file where it is.
files() {
  local key=$1 out f rel
  out=$("${list[@]}" "./functions/$key/entry") || die "go list ./functions/$key/entry failed"
  {
    echo "go.mod go.mod"
    echo "go.sum go.sum"
    while IFS= read -r f; do
      [[ -n $f ]] || continue
      rel=${f#"$root"/}
      if [[ $rel == "functions/$key/entry/"* ]]; then
        echo "$rel ${rel#"functions/$key/entry/"}"
      else
        echo "$rel $rel"
      fi
    done <<<"$out"
  } | LC_ALL=C sort -k2
}

declare -A listed
for key in "${keys[@]}"; do
  listed[$key]=$(files "$key")
  # A last guard: none of these may ever leave the machine.
  if bad=$(cut -d' ' -f2 <<<"${listed[$key]}" | grep -E '(^|/)(\.git/|infra/|\.terraform/|node_modules/|testdata/|screenshots/)|\.tfstate|\.tfvars|_test\.go$|\.zip$'); then
    die "$key's archive would include files that must stay home:"$'\n'"$bad"
  fi
  if [[ $mode == list ]]; then
    cut -d' ' -f2 <<<"${listed[$key]}" | sed "s|^|$key/|"
  fi
done
[[ $mode == list ]] && exit 0

# stage writes key's files under dir, with fixed modes and timestamps.
stage() {
  local key=$1 dir=$2 src dst
  rm -rf "${dir:?}/$key"
  while read -r src dst; do
    mkdir -p "$dir/$key/$(dirname "$dst")"
    cp "$src" "$dir/$key/$dst"
  done <<<"${listed[$key]}"
  find "$dir/$key" -type f -exec chmod 0644 {} +
  find "$dir/$key" -exec touch -h -d '1980-01-02T00:00:00Z' {} +
}

if [[ $mode == stage ]]; then
  mkdir -p "$stage_dir"
  for key in "${keys[@]}"; do
    stage "$key" "$stage_dir"
  done
  echo "deploy.sh: ${#keys[@]} functions' sources in $stage_dir" >&2
  exit 0
fi

rm -rf "$work"
mkdir -p "$work/source" "$archives"
for key in "${keys[@]}"; do
  stage "$key" "$work/source"
  # zip stores local time: pin it to UTC; no extra attributes.
  (cd "$work/source/$key" && cut -d' ' -f2 <<<"${listed[$key]}" | TZ=UTC zip -X -q -@ "$archives/$key.zip")
  echo "deploy.sh: $key: $(wc -l <<<"${listed[$key]}" | tr -d ' ') files, $(wc -c <"$archives/$key.zip" | tr -d ' ') bytes" >&2
done
"${apply[@]}"
