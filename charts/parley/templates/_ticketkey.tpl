{{/*
A fresh ES256 (P-256) key pair as JWKs, as YAML {private: <jwk>, public: <jwk>}. Sprig's genPrivateKey
"ecdsa" gives a P-256 key in SEC1 DER (RFC 5915) under PEM; for P-256 that DER has a fixed layout:
bytes 7..38 are the private scalar d, byte 56 is 0x04 (uncompressed point), 57..88 are x and 89..120 are y.
JWK wants them base64url without padding (RFC 7518 6.2).
*/}}
{{- define "parley.ticketKeyPair" -}}
{{- $pem := genPrivateKey "ecdsa" -}}
{{- $der := regexReplaceAll "-----[A-Z ]+-----" $pem "" | nospace | b64dec -}}
{{- if or (ne (len $der) 121) (ne (substr 0 7 $der | b64enc) "MHcCAQEEIA==") -}}
{{- fail "genPrivateKey \"ecdsa\" did not return a P-256 SEC1 key of the expected layout" -}}
{{- end -}}
{{- $kid := printf "parley-%s" (randAlphaNum 12 | lower) -}}
{{- $pub := dict "kty" "EC" "crv" "P-256" "use" "sig" "alg" "ES256" "kid" $kid
      "x" (include "parley.b64url" (substr 57 89 $der | b64enc))
      "y" (include "parley.b64url" (substr 89 121 $der | b64enc)) -}}
{{- $priv := merge (dict "d" (include "parley.b64url" (substr 7 39 $der | b64enc))) $pub -}}
private: {{ toJson $priv | quote }}
public: {{ toJson $pub | quote }}
{{- end -}}

{{- define "parley.b64url" -}}
{{- replace "+" "-" . | replace "/" "_" | trimAll "=" -}}
{{- end -}}
