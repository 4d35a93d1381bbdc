class SessionsController < ApplicationController
  skip_before_action :require_login, only: %i[new create]
  rate_limit to: 10, within: 3.minutes, only: :create

  def create
    user = User.find_by(email: params[:email])
    if user&.authenticate(params[:password])
      token = user.generate_token_for(:session)
      session[:user_id] = user.id
      cookies.encrypted[:remember_token] = { value: token, expires: 2.weeks, httponly: true }
      redirect_to root_path, notice: "Signed in"
    else
      flash.now[:alert] = "Invalid email or password"
      render :new, status: :unprocessable_entity
    end
  end

  def destroy
    reset_session
    cookies.delete(:remember_token)
    redirect_to new_session_path
  end

  private

  def api_client
    @api_client ||= Faraday.new(url: ENV.fetch("API_BASE")) do |f|
      f.request :authorization, "Bearer", -> { Rails.application.credentials.api_token }
      f.response :json
    end
  end

  def user_params
    params.require(:user).permit(:email, :password, :password_confirmation)
  end
end

class User < ApplicationRecord
  has_secure_password
  has_secure_token :api_key
  generates_token_for :session, expires_in: 2.weeks do
    password_salt&.last(10)
  end

  validates :password, length: { minimum: 12 }, allow_nil: true
  encrypts :otp_secret

  def self.authenticate_by_token(token)
    find_by_token_for(:session, token)
  end

  def rotate_api_key!
    regenerate_api_key
    update!(api_key_rotated_at: Time.current)
  end

  def webhook_signature(payload)
    secret = Rails.application.credentials.dig(:webhooks, :secret)
    OpenSSL::HMAC.hexdigest("SHA256", secret, payload)
  end

  def password_matches?(password)
    BCrypt::Password.new(password_digest) == password
  end
end

config = {
  password: ENV["DB_PASSWORD"],
  token: @token,
  secret_key_base: Rails.application.secret_key_base,
  session_store: :cookie_store
}

# how long a reset link lives, and the names of the headers a request carries (issue 48)
RESET_PASSWORD_WITHIN = 6.hours
HTTP_COOKIE = 'HTTP_COOKIE'
SET_COOKIE = 'set-cookie'

def peppered(password)
  password = "#{password}#{self.class.pepper}" if self.class.pepper.present?
  ::BCrypt::Password.create(password, cost: 12)
end
