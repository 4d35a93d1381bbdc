-- users and their credentials
CREATE TABLE users (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email         text NOT NULL UNIQUE,
    password_hash text NOT NULL,
    api_key_hash  text,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash text NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- sign up: the password hashed with bcrypt
INSERT INTO users (email, password_hash)
VALUES ($1, crypt($2, gen_salt('bf', 12)))
RETURNING id;

-- log in: compare the password with its hash
SELECT id FROM users WHERE email = $1 AND password_hash = crypt($2, password_hash);

-- a session's token: only its hash is stored
INSERT INTO sessions (user_id, token_hash, expires_at)
VALUES (:user_id, encode(digest(:token, 'sha256'), 'hex'), now() + interval '14 days');

SELECT u.id, u.email
FROM sessions s JOIN users u ON u.id = s.user_id
WHERE s.token_hash = encode(digest(:token, 'sha256'), 'hex') AND s.expires_at > now();

UPDATE users SET password_hash = crypt(:new_password, gen_salt('bf', 12)) WHERE id = :user_id;
UPDATE users SET api_key_hash = encode(digest(:api_key, 'sha256'), 'hex') WHERE id = :user_id;
DELETE FROM sessions WHERE expires_at < now() OR token_hash = :token_hash;
ALTER ROLE app_user WITH PASSWORD :'password';
