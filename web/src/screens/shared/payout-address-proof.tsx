import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/endpoints';
import type { PayoutAddressChallenge } from '../../api/wire';
import { ErrorMessage } from '../../components/states';
import { castSignCommand, injectedProvider, isAddressText, signatureFromInput, signWithWallet } from '../../lib/address-proof';
import { formatTimestamp } from '../../lib/format';
import { PendingButton } from '../../components/pending-button';

type Issued = PayoutAddressChallenge & { address: string };

/**
 * Proves a payout address by its own signature (api.md "Contributor trust"): the API's challenge,
 * its exact message to sign, a signature from the injected wallet (EIP-1193 personal_sign) or
 * pasted from elsewhere, then POST. A refusal (422 address_proof_invalid) is shown as the API sent
 * it; the nonce stays usable until it expires, so a corrected signature can be sent again.
 * A contributor key proves for itself, the admin for anyone; no key ever enters the browser.
 */
export function PayoutAddressProofForm({ contributorId, currentAddress }: { contributorId: string; currentAddress: string }) {
  const queryClient = useQueryClient();
  const [address, setAddress] = useState(currentAddress);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [signature, setSignature] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const wallet = injectedProvider();

  const challenge = useMutation({
    mutationFn: (forAddress: string) => api.payoutAddressChallenge(contributorId, forAddress).then((c) => ({ ...c, address: forAddress })),
    onSuccess: (c) => {
      setIssued(c);
      setSignature('');
      setCopied(false);
      prove.reset();
    },
  });
  const prove = useMutation({
    mutationFn: (body: { address: string; signature: string; nonce: string }) => api.provePayoutAddress(contributorId, body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['payout-address', contributorId] });
      await queryClient.invalidateQueries({ queryKey: ['contributor', contributorId] });
      await queryClient.invalidateQueries({ queryKey: ['contributors'] });
    },
  });
  const walletSign = useMutation({
    mutationFn: (c: Issued) => signWithWallet(wallet!, c.address, c.message),
    onSuccess: (signed) => setSignature(signed),
  });

  const ask = (event: FormEvent) => {
    event.preventDefault();
    if (!isAddressText(address)) return setProblem('An address is 0x and 40 hex digits.');
    setProblem(null);
    challenge.mutate(address.trim());
  };
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!issued) return;
    const parsed = signatureFromInput(signature);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setProblem(null);
    prove.mutate({ address: issued.address, signature: parsed.signature, nonce: issued.nonce });
  };
  const copy = () => {
    if (!issued) return;
    void navigator.clipboard?.writeText(issued.message).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };

  if (prove.isSuccess) {
    return (
      <p role="status" data-address-proven={prove.data.payout_address}>
        <span className="badge good">address proven</span> <code>{prove.data.payout_address}</code> proven by its signature
        {prove.data.payout_address_proven_at ? ` at ${formatTimestamp(prove.data.payout_address_proven_at)}` : ''}.
        {prove.data.payout_address_payable_from && Date.parse(prove.data.payout_address_payable_from) > Date.now() ? ` A new address: payable from ${formatTimestamp(prove.data.payout_address_payable_from)}.` : ''}
      </p>
    );
  }

  return (
    <div className="address-proof">
      <form onSubmit={ask} aria-label={`Prove the payout address of ${contributorId}`} className="form-grid">
        <label htmlFor={`proof-address-${contributorId}`}>Address to prove</label>
        <input
          id={`proof-address-${contributorId}`}
          value={address}
          onChange={(e) => {
            setAddress(e.target.value);
            setIssued(null);
          }}
          spellCheck={false}
          required
        />
        <div className="actions">
          <PendingButton type="submit" pending={challenge.isPending} pendingLabel="Asking…">
            Get the message to sign
          </PendingButton>
        </div>
        {challenge.isError && <ErrorMessage error={challenge.error} title="No challenge" />}
      </form>
      {issued && (
        <form onSubmit={send} aria-label={`Send the signature for ${issued.address}`} className="form-grid">
          <p>
            Sign this exact message with <code>{issued.address}</code> (EIP-191 <code>personal_sign</code>), before {formatTimestamp(issued.expires_at)}:
          </p>
          <pre className="proof-message" data-proof-message data-nonce={issued.nonce}>
            {issued.message}
          </pre>
          <div className="actions">
            <button type="button" onClick={copy}>
              Copy message
            </button>
            {copied && <span role="status">Copied.</span>}
            {wallet && (
              <PendingButton onClick={() => walletSign.mutate(issued)} pending={walletSign.isPending} pendingLabel="Waiting for the wallet…">
                Sign with the browser wallet
              </PendingButton>
            )}
          </div>
          <p className="muted small">{wallet ? 'Or sign' : 'No browser wallet found: sign'} it where the key is (a hardware or mobile wallet, Foundry's cast) and paste the signature below.</p>
          <details>
            <summary>The same with Foundry's cast</summary>
            <pre className="proof-message" data-proof-command>
              {castSignCommand(issued.message)}
            </pre>
          </details>
          {walletSign.isError && <ErrorMessage error={walletSign.error} title="The wallet did not sign" />}
          <label htmlFor={`proof-signature-${contributorId}`}>Signature (0x…)</label>
          <textarea id={`proof-signature-${contributorId}`} value={signature} onChange={(e) => setSignature(e.target.value)} spellCheck={false} rows={3} />
          <div className="actions">
            <PendingButton type="submit" className="primary" pending={prove.isPending} pendingLabel="Checking…">
              Prove address
            </PendingButton>
          </div>
          {prove.isError && <ErrorMessage error={prove.error} title="Proof refused" />}
        </form>
      )}
      {problem && (
        <p role="alert" className="error-message">
          {problem}
        </p>
      )}
    </div>
  );
}
