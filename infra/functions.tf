# The Cloud Run functions. Each is built from its own source archive, whose
# root package is its entry package (functions/<key>/entry, registering its one
# entry point with functions-framework-go), and differs by entry point,
# identity, size, environment and who may invoke it.
# Terraform is the one deploy path: scripts/deploy.sh only packages the
# sources and runs terraform apply.

locals {
  # One entry per deployed function, keyed by the name that follows
  # "introductions-" in the function's name: its entry point in lower case,
  # which is also its entry package's directory (functions/<key>/entry) and its
  # source archive's name (<key>.zip).
  #   public          allUsers may invoke it (the site's page, the mail
  #                   provider); otherwise only the members in invokers:
  #                   "owner" (var.owner_email) or "scheduler" (the Cloud
  #                   Scheduler job's account).
  #   firestore       whether its account reads and writes the database
  #                   (roles/datastore.user) and it gets the database's
  #                   variables (local.firestore_env).
  #   secrets         the secrets its account reads, by the variable that
  #                   carries each (local.secret_names, local.secret_env).
  #                   These two follow the function's row of
  #                   functions/wiring/access.go, as its builder does; the
  #                   checks compare them and print the matrix.
  #   attachments     whether its account reads, writes and deletes the
  #                   attachments' bucket (roles/storage.objectUser on it,
  #                   attachments.tf) and it gets ATTACHMENT_BUCKET; it
  #                   follows the row of functions/wiring/access.go.
  #   env             groups of local.function_env the function receives.
  #   cpu, concurrency, max_instances, memory, timeout_seconds: its size.
  #                   The code is safe for concurrent requests, and more than
  #                   one request per instance needs a whole CPU. The caps
  #                   bound the cost of a flood: beyond max_instances x
  #                   concurrency requests in flight, Cloud Run itself
  #                   answers 429 (README.md, "Bursts").
  functions = {
    challenge = {
      entry_point     = "Challenge"
      public          = true
      invokers        = []
      attachments     = false
      firestore       = false
      secrets         = ["HMAC_SECRET"]
      env             = ["base"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 40
      max_instances   = 5
      timeout_seconds = 30
    }
    forms = {
      entry_point     = "Forms"
      public          = true
      invokers        = []
      attachments     = false
      firestore       = false
      secrets         = []
      env             = ["base", "site"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 40
      max_instances   = 3
      timeout_seconds = 30
    }
    drafts = {
      entry_point     = "Drafts"
      public          = true
      invokers        = []
      attachments     = true
      firestore       = true
      secrets         = ["HMAC_SECRET", "HASH_PEPPER_SECRET"]
      env             = ["base"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 20
      max_instances   = 5
      timeout_seconds = 300 # an attachment's upload on a slow link (drafts.UploadTime)
    }
    confirmation = {
      entry_point     = "Confirmation"
      public          = true
      invokers        = []
      attachments     = true
      firestore       = true
      secrets         = ["HASH_PEPPER_SECRET", "WEBHOOK_SECRET", "SMTP_PASSWORD"]
      env             = ["base", "handoff"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 20
      max_instances   = 5
      timeout_seconds = 60
    }
    # The mail provider's signed delivery events; the code verifies each
    # signature, so the function is public.
    delivery-events = {
      entry_point     = "DeliveryEvents"
      public          = true
      invokers        = []
      attachments     = false
      firestore       = true
      secrets         = ["MAILGUN_WEBHOOK_SIGNING_KEY"]
      env             = ["base"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 20
      max_instances   = 3
      timeout_seconds = 30
    }
    # Called by the Cloud Scheduler job (scheduler.tf) with an OIDC token.
    # One instance: runs are cheap and a few at once are handled honestly.
    sweep = {
      entry_point     = "Sweep"
      public          = false
      invokers        = ["scheduler"]
      attachments     = true
      firestore       = true
      secrets         = ["WEBHOOK_SECRET", "SMTP_PASSWORD"]
      env             = ["base", "handoff"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 4
      max_instances   = 1
      timeout_seconds = 300
    }
    # The owner alone, through `gcloud run services proxy` (README.md).
    admin = {
      entry_point     = "Admin"
      public          = false
      invokers        = ["owner"]
      attachments     = true
      firestore       = true
      secrets         = ["HMAC_SECRET", "WEBHOOK_SECRET", "SMTP_PASSWORD"]
      env             = ["base", "handoff", "admin"]
      memory          = "256Mi"
      cpu             = "1"
      concurrency     = 10
      max_instances   = 2
      timeout_seconds = 120
    }
  }

  public_functions    = { for name, f in local.functions : name => f if f.public }
  firestore_functions = { for name, f in local.functions : name => f if f.firestore }

  # Who a symbolic invoker is.
  invoker_members = {
    owner     = "user:${var.owner_email}"
    scheduler = "serviceAccount:${google_service_account.scheduler.email}"
  }

  # (function, invoker) pairs of the private functions.
  function_invokers = merge([
    for name, f in local.functions : {
      for i in f.invokers : "${name} ${i}" => { function = name, invoker = i }
    }
  ]...)

  # The admin's URL, for links in the handoff's messages.
  admin_url = coalesce(var.admin_url, "https://${var.region}-${var.project_id}.cloudfunctions.net/introductions-admin")

  # Each function's plain environment: the groups of local.function_env it
  # lists, the database's variables where it holds Firestore, and the names
  # of those of its secrets the code reads through the Secret Manager API.
  function_environment = {
    for name, f in local.functions : name => merge(
      merge([for g in f.env : local.function_env[g]]...),
      { for k, v in local.firestore_env : k => v if f.firestore },
      f.attachments ? { ATTACHMENT_BUCKET = google_storage_bucket.attachments.name } : {},
      { for k, s in local.secret_names : k => s.name if contains(f.secrets, k) },
    )
  }

  # The database, for the functions that hold Firestore.
  firestore_env = {
    FIRESTORE_PROJECT  = var.project_id
    FIRESTORE_DATABASE = google_firestore_database.introductions.name
  }

  # Environment variables by group (local.functions[*].env). Variables of a
  # destination that is off are left out (null values are dropped).
  function_env = {
    base = {
      ALLOWED_ORIGINS = join(",", var.site_origins)
    }
    handoff = {
      for k, v in {
        ADMIN_URL         = local.admin_url
        WEBHOOK_URL       = var.webhook_url
        SMTP_HOST         = var.smtp == null ? null : var.smtp.host
        SMTP_PORT         = var.smtp == null ? null : tostring(var.smtp.port)
        SMTP_USERNAME     = var.smtp == null ? null : var.smtp.username
        SMTP_TLS          = var.smtp == null ? null : var.smtp.tls
        NOTIFY_EMAIL_FROM = var.smtp == null ? null : var.smtp.from
        NOTIFY_EMAIL_TO   = var.smtp == null ? null : var.smtp.to
      } : k => v if v != null
    }
    admin = {
      SCHEDULER_JOB   = local.scheduler_job
      OWNER_LANGUAGE  = var.owner_language
      OWNER_TIME_ZONE = var.owner_time_zone
    }
    # The site the page's receipt and withdrawal lead back to, published in
    # the form's definition.
    site = { for k, v in { SITE_URL = var.site_url } : k => v if v != null }
  }
}

resource "google_cloudfunctions2_function" "function" {
  for_each = local.functions

  project     = var.project_id
  location    = var.region
  name        = "introductions-${each.key}"
  description = "Introductions: ${each.value.entry_point} entry point."

  build_config {
    runtime           = var.go_runtime
    entry_point       = each.value.entry_point
    service_account   = google_service_account.build.id
    docker_repository = google_artifact_registry_repository.functions.id

    source {
      storage_source {
        bucket = google_storage_bucket.sources.name
        object = google_storage_bucket_object.source[each.key].name
      }
    }
  }

  service_config {
    available_memory                 = each.value.memory
    available_cpu                    = each.value.cpu
    max_instance_request_concurrency = each.value.concurrency
    max_instance_count               = each.value.max_instances
    min_instance_count               = 0
    timeout_seconds                  = each.value.timeout_seconds
    ingress_settings                 = "ALLOW_ALL"
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.function[each.key].email
    environment_variables            = local.function_environment[each.key]

    dynamic "secret_environment_variables" {
      for_each = { for v, s in local.secret_env : v => s if s.enabled && contains(each.value.secrets, v) }
      content {
        key        = secret_environment_variables.key
        project_id = var.project_id
        secret     = google_secret_manager_secret.secret[secret_environment_variables.value.secret].secret_id
        version    = lookup(var.secret_env_versions, secret_environment_variables.key, "latest")
      }
    }
  }

  depends_on = [
    google_project_service.enabled,
    google_project_iam_member.datastore_user,
    google_secret_manager_secret_iam_member.accessor,
    google_project_iam_member.build_log_writer,
    google_project_iam_member.build_source_reader,
    google_artifact_registry_repository_iam_member.build_writer,
  ]
}

# Anyone may call the public functions: the site's page calls them from the
# visitor's browser, the mail provider posts delivery events. Granted on the
# Cloud Run service behind each function. A domain-restricted-sharing
# organization policy refuses this binding (README.md).
resource "google_cloud_run_service_iam_member" "public_invoker" {
  for_each = local.public_functions

  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.function[each.key].name
  role     = "roles/run.invoker"
  member   = "allUsers"
}

# Named invokers of the private functions: the owner on the admin, the
# scheduler's account on the sweep.
resource "google_cloud_run_service_iam_member" "invoker" {
  for_each = local.function_invokers

  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.function[each.value.function].name
  role     = "roles/run.invoker"
  member   = local.invoker_members[each.value.invoker]
}
