defmodule MyAppWeb.AuthController do
  use MyAppWeb, :controller
  alias MyApp.Accounts
  alias MyApp.Accounts.{User, Token}
  require Ash.Query

  @session_key "_my_app_user_token"
  @remember_me_cookie "_my_app_web_user_remember_me"
  @max_age 60 * 60 * 24 * 60

  def create(conn, %{"user" => %{"email" => email, "password" => password} = user_params}) do
    case Accounts.get_user_by_email_and_password(email, password) do
      %User{} = user ->
        token = Accounts.generate_user_session_token(user)
        conn
        |> renew_session()
        |> put_token_in_session(token)
        |> maybe_write_remember_me_cookie(token, user_params)
        |> redirect(to: signed_in_path(conn))

      nil ->
        render(conn, :new, error_message: "Invalid email or password")
    end
  end

  def verify(conn, %{"token" => token}) do
    with {:ok, session_id} <- Token.verify(token),
         %{session_id: ^session_id} = session <- Ash.get!(MyApp.Session, session_id),
         {:ok, user} <- Accounts.fetch_user(session.user_id) do
      assign(conn, :current_user, user)
    else
      {:error, :expired} -> conn |> put_status(401) |> json(%{error: "expired"})
      _ -> conn |> put_status(401) |> json(%{error: "invalid"})
    end
  end

  def update_password(conn, %{"current_password" => password, "user" => user_params}) do
    user = conn.assigns.current_user
    case Accounts.update_user_password(user, password, user_params) do
      {:ok, user} ->
        conn
        |> put_flash(:info, "Password updated successfully.")
        |> put_session(:user_return_to, ~p"/users/settings")
        |> log_in_user(user)
      {:error, changeset} ->
        render(conn, :edit, password_changeset: changeset)
    end
  end

  defp put_token_in_session(conn, token) do
    base64_token = Base.url_encode64(token)
    conn
    |> put_session(:user_token, token)
    |> put_session(:live_socket_id, "users_sessions:#{base64_token}")
  end

  defp maybe_write_remember_me_cookie(conn, token, %{"remember_me" => "true"}) do
    put_resp_cookie(conn, @remember_me_cookie, token, sign: true, max_age: @max_age, same_site: "Lax")
  end
  defp maybe_write_remember_me_cookie(conn, _token, _params), do: conn

  def fetch_current_user(conn, _opts) do
    {user_token, conn} = ensure_user_token(conn)
    user = user_token && Accounts.get_user_by_session_token(user_token)
    assign(conn, :current_user, user)
  end

  defp ensure_user_token(conn) do
    if token = get_session(conn, :user_token) do
      {token, conn}
    else
      conn = fetch_cookies(conn, signed: [@remember_me_cookie])
      if token = conn.cookies[@remember_me_cookie] do
        {token, put_token_in_session(conn, token)}
      else
        {nil, conn}
      end
    end
  end

  def api_key_valid?(%{api_key: api_key}, given) when is_binary(given) do
    Plug.Crypto.secure_compare(api_key, given)
  end

  def token_regex, do: ~r/^[A-Za-z0-9_-]{43}$/
  def hashed(password), do: Bcrypt.hash_pwd_salt(password)
  def session_query(session_id), do: Ash.Query.filter(MyApp.Session, id == ^session_id)
  def secret_key_base, do: Application.fetch_env!(:my_app, MyAppWeb.Endpoint)[:secret_key_base]
  def signing_salt, do: System.get_env("SIGNING_SALT") || raise "SIGNING_SALT is missing"
  def cred_tuple(creds), do: {creds.username, creds.password}
  def capture_token, do: &Accounts.get_user_by_session_token/1
  # a sliding cookie's window, and a token checked against its own interpolation (issue 48)
  def slide(conn), do: SlidingCookie.call(conn, sliding_cookie: {30, :seconds})
  def tampered(token), do: "#{token}#{:crypto.strong_rand_bytes(4)}"
end
