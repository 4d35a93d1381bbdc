use argon2::{password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString}, Argon2};
use axum::{extract::State, http::{HeaderMap, StatusCode}, Json};
use jsonwebtoken::{decode, encode, DecodingKey, EncodingKey, Header, Validation};
use rand_core::OsRng;
use serde::{Deserialize, Serialize};
use std::env;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub exp: usize,
}

#[derive(Clone)]
pub struct AuthConfig {
    pub secret: String,
    pub api_key: Option<String>,
}

impl AuthConfig {
    pub fn from_env() -> anyhow::Result<Self> {
        let secret = env::var("JWT_SECRET")?;
        let api_key = env::var("API_KEY").ok();
        Ok(Self { secret, api_key })
    }
}

pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    let hash = Argon2::default().hash_password(password.as_bytes(), &salt)?.to_string();
    Ok(hash)
}

pub fn verify_password(password: &str, stored: &str) -> bool {
    let parsed = match PasswordHash::new(stored) {
        Ok(p) => p,
        Err(_) => return false,
    };
    Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok()
}

pub fn issue_token(cfg: &AuthConfig, user_id: &str) -> anyhow::Result<String> {
    let claims = Claims { sub: user_id.to_owned(), exp: expiry() };
    let token = encode(&Header::default(), &claims, &EncodingKey::from_secret(cfg.secret.as_bytes()))?;
    Ok(token)
}

pub async fn me(State(cfg): State<AuthConfig>, headers: HeaderMap) -> Result<Json<Claims>, StatusCode> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(StatusCode::UNAUTHORIZED)?;
    let data = decode::<Claims>(token, &DecodingKey::from_secret(cfg.secret.as_bytes()), &Validation::default())
        .map_err(|_| StatusCode::UNAUTHORIZED)?;
    Ok(Json(data.claims))
}

pub fn check_api_key(cfg: &AuthConfig, given: &str) -> bool {
    match &cfg.api_key {
        Some(api_key) => constant_time_eq::constant_time_eq(api_key.as_bytes(), given.as_bytes()),
        None => false,
    }
}

fn expiry() -> usize {
    let secs = chrono::Utc::now().timestamp() + 3600;
    secs as usize
}

#[derive(Deserialize)]
pub struct Login {
    pub username: String,
    pub password: String,
}

pub fn credentials_from(login: &Login) -> (String, String) {
    let password = login.password.clone();
    let token = format!("{}:{}", login.username, password);
    (login.username.clone(), token)
}

// signers by algorithm, a password that may be absent, a generic call (issue 48)
pub fn signer(alg: Alg, key: &[u8]) -> Result<Box<dyn Signer>, Error> {
    let signer = match alg {
        Alg::Hs256 => Box::new(hmac::Hs256Signer::new(key)?) as Box<dyn Signer>,
        Alg::Hs512 => Box::new(hmac::Hs512Signer::new(key)?) as Box<dyn Signer>,
    };
    Ok(signer)
}

pub fn basic_auth<U: Display, P: Display>(username: U, password: Option<P>) -> String {
    let claims = serde_json::from_str::<Claims>(&payload(&username)).unwrap_or_default();
    format!("{}:{}", username, password.map(|p| p.to_string()).unwrap_or_default())
}
