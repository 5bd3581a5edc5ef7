# Service accounts and their project-level roles.

# Runtime identity of the public intake functions (challenge, forms, drafts,
# confirmation).
resource "google_service_account" "intake" {
  project      = var.project_id
  account_id   = "intake-functions"
  display_name = "Introductions public intake functions"
  description  = "Runs the public Cloud Run functions of the Introductions service."
}

# Read and write Firestore documents. Firestore roles are granted on the
# project; this account exists for the Introductions service alone.
resource "google_project_iam_member" "intake_datastore_user" {
  project = var.project_id
  role    = "roles/datastore.user"
  member  = "serviceAccount:${google_service_account.intake.email}"
}
