#!/usr/bin/env bash
# Deploys the public Cloud Run functions of Introductions with gcloud, from
# the repository root: the Go buildpack builds the root package, which
# registers every entry point, so each function is --source=. with its own
# --entry-point. Settings mirror infra/functions.tf (the infra tests
# check that both declare the same functions). Private functions (sweep,
# admin) are not deployed by this script: they must never get
# --allow-unauthenticated.
#
# Usage: scripts/deploy.sh [--dry-run] [function ...]
#   --dry-run   print the gcloud commands instead of running them
#   function    deploy only these (challenge, forms, drafts, confirmation)
#
# Environment:
#   PROJECT_ID          Google Cloud project id (required)
#   REGION              region, e.g. europe-west1 (required)
#   ALLOWED_ORIGINS     comma-separated site origins for CORS (required)
#   FIRESTORE_DATABASE  Firestore database name (default: introductions)
#   GO_RUNTIME          Go runtime id (default: go126, matching go.mod)
#   RUNTIME_SA          runtime service account
#                       (default: intake-functions@PROJECT_ID.iam.gserviceaccount.com)
#   HMAC_SECRET         HMAC key secret resource name
#                       (default: projects/PROJECT_ID/secrets/intake-hmac-key)
set -euo pipefail

# name:EntryPoint:memory of each public function (infra/functions.tf).
functions=(
  "challenge:Challenge:128Mi"
  "forms:Forms:128Mi"
  "drafts:Drafts:256Mi"
  "confirmation:Confirmation:256Mi"
)

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

dry_run=false
selected=()
for arg in "$@"; do
  case "$arg" in
  --dry-run) dry_run=true ;;
  -h | --help)
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
    exit 0
    ;;
  -*) die "unknown flag $arg (see --help)" ;;
  *) selected+=("$arg") ;;
  esac
done

problems=()
[[ -n ${PROJECT_ID:-} ]] || problems+=("PROJECT_ID is not set")
[[ -n ${REGION:-} ]] || problems+=("REGION is not set")
if [[ -z ${ALLOWED_ORIGINS:-} ]]; then
  problems+=("ALLOWED_ORIGINS is not set")
else
  IFS=, read -r -a origins <<<"$ALLOWED_ORIGINS"
  for o in "${origins[@]}"; do
    [[ $o =~ ^(https://[a-z0-9.-]+|http://(localhost|127\.0\.0\.1))(:[0-9]+)?$ ]] ||
      problems+=("ALLOWED_ORIGINS: \"$o\" is not an exact origin (https://host[:port]; never * or null)")
  done
fi
database=${FIRESTORE_DATABASE:-introductions}
[[ $database =~ ^[a-z][a-z0-9-]{2,61}[a-z0-9]$ ]] ||
  problems+=("FIRESTORE_DATABASE \"$database\" is not a database name (the service never uses \"(default)\")")
if ((${#problems[@]} > 0)); then
  printf 'deploy.sh: %s\n' "${problems[@]}" >&2
  exit 1
fi

runtime=${GO_RUNTIME:-go126}
runtime_sa=${RUNTIME_SA:-intake-functions@${PROJECT_ID}.iam.gserviceaccount.com}
hmac_secret=${HMAC_SECRET:-projects/${PROJECT_ID}/secrets/intake-hmac-key}

for name in "${selected[@]}"; do
  found=false
  for f in "${functions[@]}"; do
    [[ ${f%%:*} == "$name" ]] && found=true
  done
  $found || die "unknown function \"$name\" (public functions: challenge forms drafts confirmation)"
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f go.mod ]] || die "no go.mod at the repository root"
root_go=(*.go)
if [[ ! -e ${root_go[0]} ]]; then
  msg="no root package: the Go buildpack builds only the root package, which must register every entry point"
  $dry_run || die "$msg"
  echo "deploy.sh: warning: $msg" >&2
fi
for f in *_test.go; do
  [[ -e $f ]] || continue
  if grep -q '^package [A-Za-z0-9_]*_test$' "$f"; then
    die "$f is an external test package at the root, which breaks the Go functions buildpack"
  fi
done

# gcloud's alternate delimiter (see "gcloud topic escaping"): the origins
# list itself contains commas.
env_vars="^|^FIRESTORE_PROJECT=${PROJECT_ID}|FIRESTORE_DATABASE=${database}|ALLOWED_ORIGINS=${ALLOWED_ORIGINS}|HMAC_SECRET=${hmac_secret}"

for f in "${functions[@]}"; do
  IFS=: read -r name entry_point memory <<<"$f"
  if ((${#selected[@]} > 0)) && [[ " ${selected[*]} " != *" $name "* ]]; then
    continue
  fi
  cmd=(gcloud functions deploy "introductions-${name}"
    --gen2
    --project="$PROJECT_ID"
    --region="$REGION"
    --runtime="$runtime"
    --source=.
    --entry-point="$entry_point"
    --trigger-http
    --allow-unauthenticated
    --service-account="$runtime_sa"
    --memory="$memory"
    --timeout=60s
    --max-instances=5
    --set-env-vars="$env_vars"
    --quiet)
  if $dry_run; then
    quote "${cmd[@]}"
  else
    echo "deploy.sh: deploying introductions-${name} (${entry_point})" >&2
    "${cmd[@]}"
  fi
done
