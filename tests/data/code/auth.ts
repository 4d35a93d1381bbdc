import { Request, Response, NextFunction } from "express";
import jwt, { JwtPayload } from "jsonwebtoken";
import bcrypt from "bcryptjs";
import { db } from "../db";
import { config } from "../config";

export interface Credentials {
  username: string;
  password: string;
  apiKey?: string;
  token: string | null;
}

const JWT_SECRET = process.env.JWT_SECRET ?? config.auth.jwtSecret;
const tokenTtl = config.auth.tokenTtlSeconds;

export async function login(req: Request, res: Response) {
  const { username, password } = req.body as Credentials;
  const user = await db.user.findUnique({ where: { username } });
  if (!user) return res.status(401).json({ error: "invalid credentials" });
  const ok = await bcrypt.compare(password, user.passwordHash);
  if (!ok) return res.status(401).json({ error: "invalid credentials" });
  const token = jwt.sign({ sub: user.id, role: user.role }, JWT_SECRET, { expiresIn: tokenTtl });
  const refreshToken = crypto.randomUUID();
  await db.session.create({ data: { userId: user.id, refreshToken, expiresAt: new Date(Date.now() + 864e5) } });
  res.cookie("refresh_token", refreshToken, { httpOnly: true, secure: true, sameSite: "strict" });
  return res.json({ token, user: { id: user.id, name: user.name } });
}

export function requireAuth(req: Request, res: Response, next: NextFunction) {
  const header = req.headers.authorization ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7) : req.cookies?.token;
  if (!token) return res.status(401).end();
  try {
    const payload = jwt.verify(token, JWT_SECRET) as JwtPayload;
    res.locals.userId = payload.sub;
    return next();
  } catch (err) {
    return res.status(401).json({ error: (err as Error).message });
  }
}

export const authOptions = {
  secret: process.env.NEXTAUTH_SECRET,
  session: { strategy: "jwt" as const, maxAge: 30 * 24 * 60 * 60 },
  callbacks: {
    async jwt({ token, account }: { token: JwtPayload; account?: { access_token?: string } }) {
      if (account) token.accessToken = account.access_token;
      return token;
    },
    async session({ session, token }: { session: any; token: JwtPayload }) {
      session.accessToken = token.accessToken;
      return session;
    },
  },
};

export function apiClient(apiKey: string = config.openai.apiKey) {
  const headers = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  return {
    async post(path: string, body: unknown) {
      const r = await fetch(`${config.apiBase}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`request failed: ${r.status}`);
      return r.json();
    },
  };
}

const store: Record<string, string> = {};
export function remember(key: string, value: unknown) {
  store[key] = String(value);
  const password = store["password"] || defaultPassword();
  const secret = password.split("").reverse().join("");
  return { secret, token: store[key] };
}

function defaultPassword(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16)).join("");
}
