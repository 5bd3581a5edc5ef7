# The Firestore database, its TTL policies and its security rules.

locals {
  firestore_location = coalesce(var.firestore_location, var.region)

  # Every collection the service writes. Each document carries expireAt and
  # each collection has a TTL policy on it (SPEC §6); code still treats
  # expireAt <= now as gone, since TTL deletion lags by up to a day.
  ttl_collections = [
    "introductions",
    "transcripts",
    "spentChallenges",
    "rateCounters",
    "idempotencyKeys",
    "ledger",
  ]
}

# A named database (SPEC §8): the service never falls back to "(default)".
resource "google_firestore_database" "introductions" {
  project                 = var.project_id
  name                    = var.firestore_database
  location_id             = local.firestore_location
  type                    = "FIRESTORE_NATIVE"
  delete_protection_state = "DELETE_PROTECTION_ENABLED"
  deletion_policy         = "ABANDON"

  depends_on = [google_project_service.enabled]

  lifecycle {
    prevent_destroy = true
  }
}

# TTL policy on expireAt for each collection group. No index_config block:
# the field keeps its automatic single-field indexes, which the sweep's
# "expireAt <= now" queries need (an empty index_config would remove them).
resource "google_firestore_field" "expire_at_ttl" {
  for_each = toset(local.ttl_collections)

  project    = var.project_id
  database   = google_firestore_database.introductions.name
  collection = each.key
  field      = "expireAt"

  ttl_config {}
}

# Security rules for the named database: deny every client-SDK request.
resource "google_firebaserules_ruleset" "firestore" {
  project = var.project_id

  source {
    files {
      name    = "firestore.rules"
      content = file("${path.module}/firestore.rules")
    }
  }

  depends_on = [google_firestore_database.introductions]

  lifecycle {
    create_before_destroy = true
  }
}

resource "google_firebaserules_release" "firestore" {
  project      = var.project_id
  name         = "cloud.firestore/${google_firestore_database.introductions.name}"
  ruleset_name = "projects/${var.project_id}/rulesets/${google_firebaserules_ruleset.firestore.name}"

  lifecycle {
    replace_triggered_by = [google_firebaserules_ruleset.firestore]
  }
}
