# Secret Manager secrets. Terraform declares the secrets and who may read
# them, never their versions: the owner adds versions out of band
# (README.md), so no key material enters this repository or the state.
# Every secret survives `terraform destroy` (prevent_destroy): losing the
# pepper would orphan every keyed hash, losing the HMAC key every challenge.

locals {
  # Secret id of each secret, by the key the rest of infra/ uses.
  secrets = {
    # Signs ALTCHA challenges; rotates (the service signs with the newest
    # version and fetches older ones on demand).
    hmac = "intake-hmac-key"
    # Keys the hashes of rate-limit keys, idempotency keys and ids; never
    # rotates (HASH_PEPPER_SECRET names one pinned version).
    hash_pepper = "intake-hash-pepper"
    # The handoff's secrets, read as environment variables (local.secret_env).
    webhook_secret      = "intake-webhook-secret"
    smtp_password       = "intake-smtp-password"
    mailgun_signing_key = "intake-mailgun-signing-key"
  }

  # A function names the secrets it reads by the variable that carries each
  # (local.functions[*].secrets), in one of two ways.
  #
  # Read through the Secret Manager API: the plain variable holds the
  # secret's name (the pepper's pinned version), which the code reads, and
  # follows the HMAC key's rotations while it runs.
  secret_names = {
    HMAC_SECRET        = { secret = "hmac", name = google_secret_manager_secret.secret["hmac"].id }
    HASH_PEPPER_SECRET = { secret = "hash_pepper", name = "${google_secret_manager_secret.secret["hash_pepper"].id}/versions/${var.hash_pepper_version}" }
  }

  # Secret Manager-backed: Cloud Run sets the variable to the secret's value
  # when an instance starts. Each is attached only once its destination is
  # turned on (enabled): a function refuses to start when a secret it names
  # has no version.
  secret_env = {
    WEBHOOK_SECRET              = { secret = "webhook_secret", enabled = var.webhook_url != null }
    SMTP_PASSWORD               = { secret = "smtp_password", enabled = try(var.smtp.username, null) != null }
    MAILGUN_WEBHOOK_SIGNING_KEY = { secret = "mailgun_signing_key", enabled = var.mailgun_events }
  }

  # The secret each of those variables carries.
  secret_of = { for v, s in merge(local.secret_names, local.secret_env) : v => s.secret }

  # (function, secret) pairs: each function's account reads the secrets of
  # its own local.functions[*].secrets, nothing else.
  secret_access = merge([
    for name, f in local.functions : {
      for v in f.secrets : "${name} ${local.secret_of[v]}" => { function = name, secret = local.secret_of[v] }
    }
  ]...)
}

resource "google_secret_manager_secret" "secret" {
  for_each = local.secrets

  project   = var.project_id
  secret_id = each.value

  replication {
    auto {}
  }

  depends_on = [google_project_service.enabled]

  lifecycle {
    prevent_destroy = true
  }
}

resource "google_secret_manager_secret_iam_member" "accessor" {
  for_each = local.secret_access

  project   = var.project_id
  secret_id = google_secret_manager_secret.secret[each.value.secret].secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.function[each.value.function].email}"
}
