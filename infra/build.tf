# Building the functions: the source archive, where it is kept, the Artifact
# Registry repository the images go to, and the service account Cloud Build
# runs as, with only what a build needs.

# Each function's zipped source (scripts/deploy.sh makes them, byte for
# byte the same for the same files): the files its entry package's build
# needs, that package at the root. Named by its MD5, so a function whose
# code changed is a new object and redeploys, and the others change nothing.
resource "google_storage_bucket" "sources" {
  project                     = var.project_id
  name                        = "${var.project_id}-introductions-sources"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true

  depends_on = [google_project_service.enabled]
}

resource "google_storage_bucket_object" "source" {
  for_each = local.functions

  bucket = google_storage_bucket.sources.name
  name   = "introductions-${each.key}-${filemd5("${var.source_dir}/${each.key}.zip")}.zip"
  source = "${var.source_dir}/${each.key}.zip"

  lifecycle {
    create_before_destroy = true
    # The archives' directory changes with every run of deploy.sh; the
    # content is in the name.
    ignore_changes = [source]
  }
}

resource "google_artifact_registry_repository" "functions" {
  project       = var.project_id
  location      = var.region
  repository_id = "introductions-functions"
  format        = "DOCKER"
  description   = "Images of the Introductions functions."

  # Keep the newest images of each function, delete the rest after 30 days.
  cleanup_policies {
    id     = "keep-recent"
    action = "KEEP"
    most_recent_versions {
      keep_count = 5
    }
  }
  cleanup_policies {
    id     = "delete-old"
    action = "DELETE"
    condition {
      older_than = "2592000s"
    }
  }

  depends_on = [google_project_service.enabled]
}

# Cloud Build runs the functions' builds as this account
# (build_config.service_account), not as a default account with broad roles.
resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "introductions-build"
  display_name = "Introductions function builds"
  description  = "Cloud Build identity of the Introductions functions' builds."

  depends_on = [google_project_service.enabled]
}

# Write the build's logs.
resource "google_project_iam_member" "build_log_writer" {
  project = var.project_id
  role    = "roles/logging.logWriter"
  member  = "serviceAccount:${google_service_account.build.email}"

  depends_on = [google_project_service.enabled]
}

# Read the source: this bucket's archive, and the copy Cloud Run functions
# keeps in its own gcf-v2-sources-<project number>-<region> bucket, from
# which the build reads (Google documents Storage Object Admin for it).
# Conditioned to those buckets.
resource "google_project_iam_member" "build_source_reader" {
  project = var.project_id
  role    = "roles/storage.objectAdmin"
  member  = "serviceAccount:${google_service_account.build.email}"

  condition {
    title       = "introductions-function-sources-only"
    description = "Only the Introductions source bucket and the Cloud Run functions source buckets."
    expression  = "resource.name.startsWith(\"projects/_/buckets/gcf-v2-sources-\") || resource.name == \"projects/_/buckets/${google_storage_bucket.sources.name}\" || resource.name.startsWith(\"projects/_/buckets/${google_storage_bucket.sources.name}/\")"
  }

  depends_on = [google_project_service.enabled]
}

# Push the built images to this repository only.
resource "google_artifact_registry_repository_iam_member" "build_writer" {
  project    = var.project_id
  location   = google_artifact_registry_repository.functions.location
  repository = google_artifact_registry_repository.functions.name
  role       = "roles/artifactregistry.writer"
  member     = "serviceAccount:${google_service_account.build.email}"
}
