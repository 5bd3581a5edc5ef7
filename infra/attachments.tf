# The attachments' bucket: the one file a visitor may attach to an
# introduction. Private (uniform access, public access prevention), no
# object versions and no soft delete, so a deleted file is gone at once;
# the code deletes each file with its introduction (expiry, retention,
# withdrawal, erasure), and a lifecycle rule deletes any file a day after
# the longest it may be kept, as a backstop.

locals {
  # How long a confirmed introduction is kept, in days: the code's
  # INTRODUCTION_RETENTION (its default, which infra/ does not change; the
  # checks compare the two). A file is never older than its introduction's
  # retention: it is attached before the confirmation that starts it.
  introduction_retention_days = 180

  attachment_functions = { for name, f in local.functions : name => f if f.attachments }
}

resource "google_storage_bucket" "attachments" {
  project                     = var.project_id
  name                        = "${var.project_id}-introductions-attachments"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = false

  versioning {
    enabled = false
  }

  soft_delete_policy {
    retention_duration_seconds = 0
  }

  lifecycle_rule {
    condition {
      age = local.introduction_retention_days + 1
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.enabled]
}

# Read, write and delete objects of that bucket alone, for the functions
# that hold attachments (local.functions[*].attachments, following
# functions/wiring/access.go): Drafts, Confirmation, Sweep, Admin.
resource "google_storage_bucket_iam_member" "attachments" {
  for_each = local.attachment_functions

  bucket = google_storage_bucket.attachments.name
  role   = "roles/storage.objectUser"
  member = "serviceAccount:${google_service_account.function[each.key].email}"
}
