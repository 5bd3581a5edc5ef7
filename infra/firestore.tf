# The Firestore database, its TTL policies, the composite indexes the store's
# queries need, and its security rules.

locals {
  firestore_location = coalesce(var.firestore_location, var.region)

  # Every collection the service writes (firestorestore.Collections; the
  # infra tests compare the two). Each document carries expireAt and each
  # collection has a TTL policy on it; the code still treats expireAt <= now
  # as gone, since TTL deletion lags by up to a day, and the sweep deletes
  # what has expired by querying expireAt.
  ttl_collections = [
    "introductions",
    "transcripts",
    "spentChallenges",
    "rateCounters",
    "idempotencyKeys",
    "ledger",
    "envelopes",
    "sweepRuns",
    "dailyFigures",
    "providerEvents",
    "recentMessages",
    "decoyAttachments",
  ]

  # Composite indexes, one per query of firestorestore.Queries that filters
  # or orders on more than one field (the infra tests check each has one).
  # Single-field queries, such as the sweep's expireAt <= now, use the
  # automatic single-field indexes. An entry looks like
  #   envelopes_due = {
  #     collection = "envelopes"
  #     fields = [
  #       { path = "status", descending = false, array_contains = false },
  #       { path = "nextAttemptAt", descending = false, array_contains = false },
  #     ]
  #   }
  composite_indexes = {
    # The admin's list: confirmed and handled, newest confirmation first.
    introductions_by_state_confirmed = {
      collection = "introductions"
      fields = [
        { path = "state", descending = false, array_contains = false },
        { path = "confirmedAt", descending = true, array_contains = false },
      ]
    }
    # The admin's list filtered by folder (inbox, likely spam, spam).
    introductions_by_folder_state_confirmed = {
      collection = "introductions"
      fields = [
        { path = "folder", descending = false, array_contains = false },
        { path = "state", descending = false, array_contains = false },
        { path = "confirmedAt", descending = true, array_contains = false },
      ]
    }
    # The admin's waiting count, which leaves out what the owner marked spam.
    introductions_by_folder_state = {
      collection = "introductions"
      fields = [
        { path = "folder", descending = false, array_contains = false },
        { path = "state", descending = false, array_contains = false },
      ]
    }
    # The admin's daily figures: likely-spam introductions confirmed per day.
    ledger_by_likely_spam_confirmed = {
      collection = "ledger"
      fields = [
        { path = "abuse.likelySpam", descending = false, array_contains = false },
        { path = "confirmedAt", descending = false, array_contains = false },
      ]
    }
    # The admin's daily figures: base-cost solves per day by bucket.
    ledger_by_solve_time = {
      collection = "ledger"
      fields = [
        { path = "abuse.solve.maxNumber", descending = false, array_contains = false },
        { path = "abuse.solve.millis", descending = false, array_contains = false },
        { path = "provenance.time", descending = false, array_contains = false },
      ]
    }
    # The admin's daily figures: refused attempts per day by abuse state.
    ledger_by_abuse_time = {
      collection = "ledger"
      fields = [
        { path = "abuse.state", descending = false, array_contains = false },
        { path = "provenance.time", descending = false, array_contains = false },
      ]
    }
  }
}

# A named database: the service never falls back to "(default)".
# Point-in-time recovery keeps every version of every document for 7 days:
# the privacy notice says backups hold data that long after its deletion.
resource "google_firestore_database" "introductions" {
  project                           = var.project_id
  name                              = var.firestore_database
  location_id                       = local.firestore_location
  type                              = "FIRESTORE_NATIVE"
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = "DELETE_PROTECTION_ENABLED"
  deletion_policy                   = "ABANDON"

  depends_on = [google_project_service.enabled]

  lifecycle {
    prevent_destroy = true
  }
}

# TTL policy on expireAt for each collection group. No index_config block:
# the field keeps its automatic single-field indexes, which the sweep's
# "expireAt <= now" queries need (an index_config would replace them).
resource "google_firestore_field" "expire_at_ttl" {
  for_each = toset(local.ttl_collections)

  project    = var.project_id
  database   = google_firestore_database.introductions.name
  collection = each.key
  field      = "expireAt"

  ttl_config {}
}

resource "google_firestore_index" "composite" {
  for_each = local.composite_indexes

  project     = var.project_id
  database    = google_firestore_database.introductions.name
  collection  = each.value.collection
  query_scope = "COLLECTION"

  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path   = fields.value.path
      order        = fields.value.array_contains ? null : (fields.value.descending ? "DESCENDING" : "ASCENDING")
      array_config = fields.value.array_contains ? "CONTAINS" : null
    }
  }
}

# Security rules for the named database: deny every client-SDK request.
# Releasing rules goes through the Firebase Rules API, which needs a quota
# project when Terraform runs with user credentials (README.md).
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
