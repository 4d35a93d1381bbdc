package com.example.app.auth

import android.content.SharedPreferences
import androidx.security.crypto.EncryptedSharedPreferences
import androidx.security.crypto.MasterKey
import kotlinx.coroutines.flow.MutableStateFlow
import okhttp3.Interceptor
import okhttp3.Response

class TokenStore(private val prefs: SharedPreferences) {
    private val state = MutableStateFlow<String?>(prefs.getString(KEY_TOKEN, null))

    var token: String?
        get() = state.value
        set(value) {
            prefs.edit().putString(KEY_TOKEN, value).apply()
            state.value = value
        }

    val refreshToken: String? get() = prefs.getString(KEY_REFRESH, null)

    fun save(session: Session) {
        val token = session.accessToken
        val refresh = session.refreshToken ?: return
        prefs.edit().putString(KEY_TOKEN, token).putString(KEY_REFRESH, refresh).apply()
    }

    companion object {
        private const val KEY_TOKEN = "access_token"
        private const val KEY_REFRESH = "refresh_token"

        fun create(context: android.content.Context): TokenStore {
            val masterKey = MasterKey.Builder(context).setKeyScheme(MasterKey.KeyScheme.AES256_GCM).build()
            val prefs = EncryptedSharedPreferences.create(
                context, "secure_prefs", masterKey,
                EncryptedSharedPreferences.PrefKeyEncryptionScheme.AES256_SIV,
                EncryptedSharedPreferences.PrefValueEncryptionScheme.AES256_GCM,
            )
            return TokenStore(prefs)
        }
    }
}

class AuthInterceptor(private val store: TokenStore) : Interceptor {
    override fun intercept(chain: Interceptor.Chain): Response {
        val token = store.token ?: return chain.proceed(chain.request())
        val request = chain.request().newBuilder().header("Authorization", "Bearer $token").build()
        return chain.proceed(request)
    }
}

data class Session(val accessToken: String, val refreshToken: String?, val expiresIn: Long)

data class LoginRequest(val username: String, val password: String)

fun LoginRequest.isValid(): Boolean = username.isNotBlank() && password.length >= 12

val apiKey: String = BuildConfig.API_KEY
val secret = System.getenv("APP_SECRET") ?: error("APP_SECRET is not set")
