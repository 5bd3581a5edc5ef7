# Service accounts, one per role, and their grants. Grants on one resource
# (a secret, a Cloud Run service, a repository, a bucket) live beside that
# resource; the project-level ones here are each narrowed by a condition or
# a custom role where Google Cloud allows it.

# Runtime identity of each function (local.functions).
resource "google_service_account" "function" {
  for_each = local.functions

  project      = var.project_id
  account_id   = "introductions-${each.key}"
  display_name = "Introductions ${each.value.entry_point} function"
  description  = "Runs the ${each.value.entry_point} Cloud Run function of the Introductions service."

  depends_on = [google_project_service.enabled]
}

# Read and write documents of the named database only, for the functions
# that hold Firestore (local.functions[*].firestore): Challenge and Forms
# hold none. Firestore roles are granted on the project; the condition
# restricts this grant to the one database.
resource "google_project_iam_member" "datastore_user" {
  for_each = local.firestore_functions

  project = var.project_id
  role    = "roles/datastore.user"
  member  = "serviceAccount:${google_service_account.function[each.key].email}"

  condition {
    title       = "introductions-database-only"
    description = "Only the Introductions Firestore database."
    expression  = "resource.name == \"projects/${var.project_id}/databases/${google_firestore_database.introductions.name}\""
  }

  depends_on = [google_project_service.enabled]
}

# The identity Cloud Scheduler signs the sweep's OIDC token with. Its only
# grant is roles/run.invoker on the sweep (functions.tf).
resource "google_service_account" "scheduler" {
  project      = var.project_id
  account_id   = "introductions-scheduler"
  display_name = "Introductions sweep scheduler"
  description  = "Calls the Introductions sweep from Cloud Scheduler."

  depends_on = [google_project_service.enabled]
}

# The admin's health page reads the scheduler job (last attempt, status,
# schedule). Cloud Scheduler has no per-job IAM and ignores IAM conditions,
# so the narrowest grant is a custom role holding cloudscheduler.jobs.get
# alone (no listing, no changes), on the project.
resource "google_project_iam_custom_role" "scheduler_job_reader" {
  project     = var.project_id
  role_id     = "introductionsSchedulerJobReader"
  title       = "Introductions scheduler job reader"
  description = "Read one Cloud Scheduler job's state, for the Introductions admin health page."
  permissions = ["cloudscheduler.jobs.get"]

  depends_on = [google_project_service.enabled]
}

resource "google_project_iam_member" "admin_scheduler_job_reader" {
  project = var.project_id
  role    = google_project_iam_custom_role.scheduler_job_reader.name
  member  = "serviceAccount:${google_service_account.function["admin"].email}"

  depends_on = [google_project_service.enabled]
}
