# The HMAC key that signs ALTCHA challenges (SPEC §2.6). Terraform declares
# the secret only: its versions are added by the owner out of band (README.md),
# so key material never enters this repository or the Terraform state.
resource "google_secret_manager_secret" "hmac" {
  project   = var.project_id
  secret_id = "intake-hmac-key"

  replication {
    auto {}
  }

  depends_on = [google_project_service.enabled]
}

# The intake functions may read this secret's versions, and no other secret.
resource "google_secret_manager_secret_iam_member" "intake_hmac_accessor" {
  project   = var.project_id
  secret_id = google_secret_manager_secret.hmac.secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.intake.email}"
}
