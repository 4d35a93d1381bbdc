#!/usr/bin/env bash
set -euo pipefail

: "${DEPLOY_ENV:=staging}"
DB_PASSWORD="$(aws secretsmanager get-secret-value --secret-id "app/${DEPLOY_ENV}/db" --query SecretString --output text | jq -r .password)"
API_TOKEN=$(vault kv get -field=token "secret/app/${DEPLOY_ENV}")
GITHUB_TOKEN="${GITHUB_TOKEN:-$(gh auth token)}"
export DB_PASSWORD API_TOKEN GITHUB_TOKEN

token_file="${HOME}/.config/app/token"
if [[ -f "$token_file" ]]; then
  SESSION_TOKEN=$(<"$token_file")
else
  SESSION_TOKEN=$(curl -fsS -X POST "https://auth.example.com/token" \
    -H "Content-Type: application/json" \
    -d "{\"username\": \"deploy\", \"password\": \"${DB_PASSWORD}\"}" | jq -r .access_token)
  printf '%s' "$SESSION_TOKEN" > "$token_file"
fi

docker login ghcr.io -u deploy --password-stdin <<<"$GITHUB_TOKEN"
kubectl create secret generic app-db \
  --from-literal=password="$DB_PASSWORD" \
  --from-literal=token="$API_TOKEN" \
  --dry-run=client -o yaml | kubectl apply -f -

for key in API_TOKEN DB_PASSWORD SESSION_TOKEN; do
  if [[ -z "${!key:-}" ]]; then echo "missing $key" >&2; exit 1; fi
done

psql "postgresql://app@db.internal:5432/app" -v password="$DB_PASSWORD" -f migrate.sql
secret_name="app-${DEPLOY_ENV}-secret"
password_file=/run/secrets/db_password
helm upgrade --install app ./chart --set auth.secretName="$secret_name" --set auth.passwordFile="$password_file"
