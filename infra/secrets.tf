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

  # Secrets every function reads through the Secret Manager API: the shared
  # wiring builds the keyring and the keyed hashes in every function.
  key_secrets = ["hmac", "hash_pepper"]

  # Secret Manager-backed environment variables, by variable name: which
  # secret, and whether its destination is turned on (a function refuses to
  # start when a secret it names has no version, so each is attached only
  # once the owner enables that destination). Functions list the ones they
  # need in local.functions[*].secret_env.
  secret_env = {
    WEBHOOK_SECRET              = { secret = "webhook_secret", enabled = var.webhook_url != null }
    SMTP_PASSWORD               = { secret = "smtp_password", enabled = try(var.smtp.username, null) != null }
    MAILGUN_WEBHOOK_SIGNING_KEY = { secret = "mailgun_signing_key", enabled = var.mailgun_events }
  }

  # (function, secret) pairs: each function's account reads the key secrets
  # and the secrets of its own secret environment variables, nothing else.
  secret_access = merge([
    for name, f in local.functions : {
      for s in concat(local.key_secrets, [for v in f.secret_env : local.secret_env[v].secret]) :
      "${name} ${s}" => { function = name, secret = s }
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
