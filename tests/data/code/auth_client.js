const crypto = require("node:crypto");
const { promisify } = require("node:util");
const scrypt = promisify(crypto.scrypt);

const config = {
  apiKey: process.env.API_KEY,
  secret: process.env.APP_SECRET || "",
  tokenUrl: process.env.TOKEN_URL,
  password: null,
};

async function hashPassword(password) {
  const salt = crypto.randomBytes(16).toString("hex");
  const key = await scrypt(password, salt, 64);
  return `${salt}:${key.toString("hex")}`;
}

async function verifyPassword(password, stored) {
  const [salt, hash] = stored.split(":");
  const key = await scrypt(password, salt, 64);
  return crypto.timingSafeEqual(Buffer.from(hash, "hex"), key);
}

async function fetchToken({ clientId, clientSecret }) {
  const body = new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  const res = await fetch(config.tokenUrl, { method: "POST", body });
  const { access_token: token, expires_in: ttl } = await res.json();
  return { token, ttl };
}

function sign(payload, secret = config.secret) {
  const signature = crypto.createHmac("sha256", secret).update(JSON.stringify(payload)).digest("base64url");
  return { ...payload, signature };
}

module.exports = { hashPassword, verifyPassword, fetchToken, sign, config };

const session = { token: null, refreshToken: undefined };
function setSession(next) {
  session.token = next.token;
  session.refreshToken = next.refresh_token ?? session.refreshToken;
  const password = next.password || config.password;
  return password;
}

// a test's cookie and the parser of a cookie header (issue 48)
function rememberTheme(res) {
  res.append('Set-Cookie', 'theme=dark; Path=/; HttpOnly');
  const cookiePairs = /([^\s,;=]+)\s*(?:=\s*([^,;]+))?/g;
  return cookiePairs;
}
