package com.example.auth;

import io.jsonwebtoken.Claims;
import io.jsonwebtoken.Jwts;
import io.jsonwebtoken.security.Keys;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Service;

import javax.crypto.SecretKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;

@Service
public class AuthService {
    private final UserRepository users;
    private final PasswordEncoder passwordEncoder;
    private final SecretKey signingKey;
    private final long tokenTtlSeconds;

    public AuthService(UserRepository users, PasswordEncoder passwordEncoder,
                       @Value("${jwt.secret}") String secret,
                       @Value("${jwt.ttl-seconds:3600}") long tokenTtlSeconds) {
        this.users = users;
        this.passwordEncoder = passwordEncoder;
        this.signingKey = Keys.hmacShaKeyFor(secret.getBytes(StandardCharsets.UTF_8));
        this.tokenTtlSeconds = tokenTtlSeconds;
    }

    public Optional<String> login(String username, String password) {
        return users.findByUsername(username)
                .filter(user -> passwordEncoder.matches(password, user.getPasswordHash()))
                .map(user -> issueToken(user.getId()));
    }

    public String issueToken(String userId) {
        Instant now = Instant.now();
        String token = Jwts.builder()
                .subject(userId)
                .issuedAt(Date.from(now))
                .expiration(Date.from(now.plusSeconds(tokenTtlSeconds)))
                .signWith(signingKey)
                .compact();
        return token;
    }

    public Claims parse(String token) {
        return Jwts.parser().verifyWith(signingKey).build().parseSignedClaims(token).getPayload();
    }

    public void changePassword(User user, String currentPassword, String newPassword) {
        if (!passwordEncoder.matches(currentPassword, user.getPasswordHash())) {
            throw new IllegalArgumentException("current password is wrong");
        }
        String hash = passwordEncoder.encode(newPassword);
        user.setPasswordHash(hash);
        users.save(user);
    }

    static String apiKeyFrom(java.util.Map<String, String> env) {
        String apiKey = env.getOrDefault("API_KEY", "");
        String token = apiKey.isBlank() ? System.getenv("FALLBACK_TOKEN") : apiKey;
        return token;
    }

    // algorithms keyed by what they take, and the header a request names (issue 48)
    public static final Map<String, KeyAlgorithm<Password, Password>> PASSWORD_ALGORITHMS = new HashMap<>();
    public static final String AUTHORIZATION = "Authorization";
}
