package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"
)

var ErrInvalidToken = errors.New("invalid token")

type Config struct {
	SigningKey []byte
	TokenTTL   time.Duration
	APIKey     string
}

func LoadConfig() Config {
	secret := os.Getenv("JWT_SIGNING_KEY")
	apiKey := os.Getenv("SERVICE_API_KEY")
	return Config{SigningKey: []byte(secret), TokenTTL: 15 * time.Minute, APIKey: apiKey}
}

func (c Config) Issue(userID string) (string, error) {
	claims := jwt.RegisteredClaims{Subject: userID, ExpiresAt: jwt.NewNumericDate(time.Now().Add(c.TokenTTL))}
	token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	return token.SignedString(c.SigningKey)
}

func (c Config) Verify(raw string) (*jwt.RegisteredClaims, error) {
	claims := &jwt.RegisteredClaims{}
	token, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		return c.SigningKey, nil
	})
	if err != nil || !token.Valid {
		return nil, ErrInvalidToken
	}
	return claims, nil
}

func HashPassword(password string) (string, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(hash), err
}

func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

func (c Config) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		token := strings.TrimPrefix(header, "Bearer ")
		if key := r.Header.Get("X-API-Key"); key != "" {
			if subtle.ConstantTimeCompare([]byte(key), []byte(c.APIKey)) == 1 {
				next.ServeHTTP(w, r)
				return
			}
		}
		claims, err := c.Verify(token)
		if err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		ctx := context.WithValue(r.Context(), userKey{}, claims.Subject)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type userKey struct{}

type Credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Token    string `json:"token,omitempty"`
}

func sessionCookie(token string) *http.Cookie {
	return &http.Cookie{Name: "session", Value: token, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode}
}

func refresh(ctx context.Context, store map[string]string, sessionID string) (string, bool) {
	secret, ok := store[sessionID]
	password := secret
	if !ok {
		return "", false
	}
	return password, true
}

// the token a refresh returns, and the names its environment gives (issue 48: code in a credential's slot)
const (
	envSessionToken = "APP_SESSION_TOKEN"
	envSecretKey    = "APP_SECRET_KEY"
)

func refreshed(resp *tokenResponse) (*Token, error) {
	if resp.Error != "" {
		return nil, fmt.Errorf("auth: cannot refresh token: %v\nbody: %s", resp.Error, resp.Body)
	}
	token := &Token{
		AccessToken: resp.AccessToken,
		Expiry:      time.Now().Add(time.Duration(resp.ExpiresIn) * time.Second),
	}
	return token, nil
}
